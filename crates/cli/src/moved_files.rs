//! The two ends of a branch's files moving between machines with `fork --to-host` (the
//! carrier, `remote.rs`, calls them over ssh or in process): `files-target` on the target says
//! what its clone holds, `bundle-files` on the source writes the bundle of only the rest, and
//! `adopt-branch` takes the branch and that bundle on one stdin (`read_branch_input`); the
//! bundle streams through files, never whole in memory.

use std::io::{BufRead, Read, Write};
use std::path::PathBuf;

use forkhost_core::{BranchFiles, BranchSeed, Host, HostError};
use serde::{Deserialize, Serialize};

use crate::output::Printed;

#[derive(Debug, clap::Args)]
pub struct FilesTargetArgs {
    #[arg(long)]
    cwd: PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct BundleArgs {
    thread: String,
}

/// `bundle-files`'s stdin: which files, and what the target holds already.
#[derive(Debug, Serialize, Deserialize)]
pub struct BundleAsk {
    pub files: BranchFiles,
    pub have: Vec<String>,
}

/// `files-target --cwd DIR`, the branch's files (JSON) on stdin: where they would land here.
pub async fn files_target(host: &Host, args: FilesTargetArgs) -> Result<Printed, HostError> {
    let files: BranchFiles = serde_json::from_slice(&stdin()?)
        .map_err(|e| HostError::InvalidInput(format!("no branch files on stdin: {e}")))?;
    let target = host.files_target(&args.cwd, &files).await?;
    let text = match target.new_repository {
        true => "a new repository".to_owned(),
        false => format!("a clone holding {} tips", target.have.len()),
    };
    let json = serde_json::to_value(&target).map_err(|e| HostError::Internal(e.to_string()))?;
    Ok(Printed::new(json, text))
}

/// `bundle-files THREAD`, a [`BundleAsk`] on stdin: the bundle's bytes on stdout, nothing else.
pub async fn bundle(host: &Host, args: BundleArgs) -> Result<Printed, HostError> {
    let ask: BundleAsk = serde_json::from_slice(&stdin()?)
        .map_err(|e| HostError::InvalidInput(format!("no bundle request on stdin: {e}")))?;
    let file = temp_file()?;
    host.bundle_branch_files(&args.thread, &ask.files, &ask.have, &file)
        .await?;
    let mut bundle = std::fs::File::open(&file).map_err(|e| HostError::Internal(e.to_string()))?;
    let mut out = std::io::stdout().lock();
    std::io::copy(&mut bundle, &mut out)
        .and_then(|_| out.flush())
        .map_err(|e| HostError::HostUnreachable(format!("the bundle could not be sent: {e}")))?;
    Ok(Printed::written())
}

/// Reads `adopt-branch`'s stdin: the branch as one JSON line, then its files' bundle when it
/// has one, streamed into a temporary file (deleted when dropped).
pub fn read_branch_input() -> Result<(BranchSeed, Option<tempfile::TempPath>), HostError> {
    let mut input = std::io::BufReader::new(std::io::stdin().lock());
    let mut json = Vec::new();
    input
        .read_until(b'\n', &mut json)
        .map_err(|e| HostError::InvalidInput(format!("stdin could not be read: {e}")))?;
    let branch: BranchSeed = serde_json::from_slice(&json)
        .map_err(|e| HostError::InvalidInput(format!("the branch on stdin is not one: {e}")))?;
    let file = temp_file()?;
    let mut out = std::fs::File::create(&file).map_err(|e| HostError::Internal(e.to_string()))?;
    let copied = std::io::copy(&mut input, &mut out).map_err(|e| {
        HostError::InvalidInput(format!("the branch's files could not be read: {e}"))
    })?;
    Ok((branch, (copied > 0).then_some(file)))
}

/// A new empty temporary file, deleted when dropped.
pub fn temp_file() -> Result<tempfile::TempPath, HostError> {
    tempfile::Builder::new()
        .prefix("forkhost-branch-")
        .suffix(".bundle")
        .tempfile()
        .map(tempfile::NamedTempFile::into_temp_path)
        .map_err(|e| HostError::Internal(format!("no temporary file: {e}")))
}

fn stdin() -> Result<Vec<u8>, HostError> {
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| HostError::InvalidInput(format!("stdin could not be read: {e}")))?;
    Ok(input)
}
