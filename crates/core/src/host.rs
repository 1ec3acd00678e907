//! [`Host`]: the one API over the store and the harnesses.

use std::path::{Path, PathBuf};

use forkhost_store::{Recovery, Store, ThreadRow};

use crate::data_dir::STORE_FILE;
use crate::error::HostResult;

/// The Host. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Host {
    store: Store,
    data_dir: PathBuf,
}

/// What happened while the Host opened, for the shells to tell the user.
#[derive(Debug, Default)]
pub struct OpenReport {
    /// The store file was unusable and was moved aside; a fresh one took its place.
    pub recovered: Option<Recovery>,
    /// Interrupted forks removed at open.
    pub removed_creating: u64,
}

impl Host {
    /// Opens the Host on a data folder, creating it and its store as needed.
    pub async fn open(data_dir: impl AsRef<Path>) -> HostResult<(Host, OpenReport)> {
        let data_dir = data_dir.as_ref().to_owned();
        let opened = Store::open(data_dir.join(STORE_FILE)).await?;
        let report = OpenReport {
            recovered: opened.recovered,
            removed_creating: opened.removed_creating,
        };
        Ok((
            Host {
                store: opened.store,
                data_dir,
            },
            report,
        ))
    }

    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// All threads, oldest first, without their turns.
    pub async fn threads(&self) -> HostResult<Vec<ThreadRow>> {
        Ok(self.store.threads().await?)
    }

    pub async fn close(&self) {
        self.store.close().await;
    }
}
