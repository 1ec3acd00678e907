//! `forkhost grants THREAD [--revoke ID]`: the rules "Always this session" added to a thread,
//! and taking one back.

use forkhost_core::{Host, HostResult};

use crate::approve::visible;
use crate::output::Printed;

pub async fn grants(host: &Host, thread: &str, revoke: Option<&str>) -> HostResult<Printed> {
    if let Some(id) = revoke {
        host.revoke_grant(thread, id).await?;
    }
    let grants = host.session_grants(thread).await?;
    let mut text = match grants.len() {
        0 => "no session grants: every request is asked".to_owned(),
        1 => "1 rule for this session:".to_owned(),
        n => format!("{n} rules for this session:"),
    };
    for grant in &grants {
        text.push_str(&format!("\n  {}  {}", grant.id, visible(&grant.words)));
    }
    if let Some(id) = revoke {
        text = format!(
            "revoked {id} (the harness forgets it when its process ends; Forkhost ends an idle one now)\n{text}"
        );
    }
    Ok(Printed::new(
        serde_json::json!({ "thread": thread, "grants": grants }),
        text,
    ))
}
