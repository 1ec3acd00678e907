//! The two ends of a branch's files moving between machines with `fork --to-host` (the
//! carrier, `remote.rs`, calls them over ssh or in process): `files-target` on the target says
//! what its clone holds, `bundle-files` on the source writes the bundle of only the rest, and
//! `adopt-branch` takes the branch and that bundle on one stdin (`branch_input`).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

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
    let bytes = std::fs::read(&file).map_err(|e| HostError::Internal(e.to_string()))?;
    let mut out = std::io::stdout().lock();
    out.write_all(&bytes)
        .and_then(|()| out.flush())
        .map_err(|e| HostError::HostUnreachable(format!("the bundle could not be sent: {e}")))?;
    Ok(Printed::written())
}

/// `adopt-branch`'s stdin: the branch as one JSON line, then its files' bundle when it has one.
pub fn branch_input(branch: &BranchSeed, bundle: Option<&Path>) -> Result<Vec<u8>, HostError> {
    let mut input = serde_json::to_vec(branch).map_err(|e| HostError::Internal(e.to_string()))?;
    if let Some(bundle) = bundle {
        input.push(b'\n');
        let bytes = std::fs::read(bundle).map_err(|e| HostError::Internal(e.to_string()))?;
        input.extend_from_slice(&bytes);
    }
    Ok(input)
}

/// Reads what [`branch_input`] wrote from this process's stdin: the branch, and its bundle
/// in a temporary file (deleted when dropped).
pub fn read_branch_input() -> Result<(BranchSeed, Option<tempfile::TempPath>), HostError> {
    let input = stdin()?;
    let (json, bundle) = match input.iter().position(|b| *b == b'\n') {
        Some(at) => (&input[..at], &input[at + 1..]),
        None => (&input[..], &[][..]),
    };
    let branch: BranchSeed = serde_json::from_slice(json)
        .map_err(|e| HostError::InvalidInput(format!("the branch on stdin is not one: {e}")))?;
    if bundle.is_empty() {
        return Ok((branch, None));
    }
    let file = temp_file()?;
    std::fs::write(&file, bundle).map_err(|e| HostError::Internal(e.to_string()))?;
    Ok((branch, Some(file)))
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
