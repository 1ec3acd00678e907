//! Pi's models: what `get_available_models` reports (`provider/id`), and `set_model`, which
//! Pi records in the session (a resume keeps it). A name Pi does not offer is refused here in
//! words, with the ones it offers.

use serde_json::{json, Value};

use super::process::RpcClient;
use super::timeouts::REQUEST_TIMEOUT;
use crate::{HarnessError, HarnessKind, HarnessResult};

/// The models Pi offers, as `provider/id`.
pub(super) async fn available(client: &RpcClient) -> HarnessResult<Vec<String>> {
    let response = client
        .request("get_available_models", json!({}), REQUEST_TIMEOUT)
        .await
        .map_err(|e| {
            HarnessError::failed(HarnessKind::Pi, format!("get_available_models: {e}"), "")
        })?;
    if !response.success {
        return Err(HarnessError::failed(
            HarnessKind::Pi,
            format!(
                "pi did not list its models: {}",
                response.error.unwrap_or_default()
            ),
            "",
        ));
    }
    Ok(response
        .data
        .get("models")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| {
            let provider = m.get("provider")?.as_str()?;
            let id = m.get("id")?.as_str()?;
            Some(format!("{provider}/{id}"))
        })
        .collect())
}

/// Switches to `model` (`provider/id`, or an id Pi offers under one provider only).
pub(super) async fn set(client: &RpcClient, model: &str) -> HarnessResult<()> {
    let offered = available(client).await?;
    let found = if offered.iter().any(|m| m == model) {
        Some(model.to_owned())
    } else {
        let by_id: Vec<&String> = offered
            .iter()
            .filter(|m| m.split_once('/').is_some_and(|(_, id)| id == model))
            .collect();
        (by_id.len() == 1).then(|| by_id[0].clone())
    };
    let Some(found) = found else {
        return Err(HarnessError::InvalidInput(format!(
            "pi offers no model {model} (it offers: {})",
            if offered.is_empty() {
                "none".to_owned()
            } else {
                offered.join(", ")
            }
        )));
    };
    let (provider, id) = found.split_once('/').unwrap_or(("", &found));
    let response = client
        .request(
            "set_model",
            json!({ "provider": provider, "modelId": id }),
            REQUEST_TIMEOUT,
        )
        .await
        .map_err(|e| HarnessError::failed(HarnessKind::Pi, format!("set_model: {e}"), ""))?;
    match response.success {
        true => Ok(()),
        false => Err(HarnessError::InvalidInput(format!(
            "pi refused the model {model}: {}",
            response.error.unwrap_or_else(|| "no reason given".into())
        ))),
    }
}
