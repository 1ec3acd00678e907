//! Keeps every web view on the app's own pages: links to the web open in the browser, anything
//! else is refused, so no remote page ever runs where the app's commands can be called.

use tauri::AppHandle;

/// Keeps a window on the app's own pages: a link, a dropped URL or a script can never load a
/// remote page into a web view that can call the app's commands. An http(s)/mailto link goes to
/// the system browser instead (the same opener the UI uses); anything else is refused.
/// `window.open` never makes a web view either: the app opens its own windows from Rust.
pub fn stay_on_app_origin<'a>(
    builder: tauri::WebviewWindowBuilder<'a, tauri::Wry, AppHandle>,
    app: &AppHandle,
) -> tauri::WebviewWindowBuilder<'a, tauri::Wry, AppHandle> {
    let dev_url = tauri::is_dev()
        .then(|| app.config().build.dev_url.clone())
        .flatten();
    let (nav_app, popup_app) = (app.clone(), app.clone());
    builder
        .on_navigation(move |url| {
            if is_app_url(url, dev_url.as_ref()) {
                return true;
            }
            open_outside(&nav_app, url);
            false
        })
        .on_new_window(move |url, _features| {
            open_outside(&popup_app, &url);
            tauri::webview::NewWindowResponse::Deny
        })
}

/// Whether `url` is one of the app's own pages: `tauri://localhost` (Linux, macOS),
/// `http(s)://tauri.localhost` (Windows), or the dev server in development.
fn is_app_url(url: &tauri::Url, dev_url: Option<&tauri::Url>) -> bool {
    let same_origin = |other: &tauri::Url| {
        url.scheme() == other.scheme()
            && url.host_str() == other.host_str()
            && url.port_or_known_default() == other.port_or_known_default()
    };
    match (url.scheme(), url.host_str()) {
        ("tauri", Some("localhost")) => url.port().is_none(),
        ("http" | "https", Some("tauri.localhost")) => url.port().is_none(),
        // A web view's first document before the app's page loads.
        ("about", _) => url.as_str() == "about:blank",
        _ => dev_url.is_some_and(same_origin),
    }
}

/// The schemes a link may open outside the app (the capability's opener scope).
fn opens_outside(url: &tauri::Url) -> bool {
    matches!(url.scheme(), "http" | "https" | "mailto")
}

fn open_outside(app: &AppHandle, url: &tauri::Url) {
    use tauri_plugin_opener::OpenerExt;
    if !opens_outside(url) {
        tracing::warn!(
            scheme = url.scheme(),
            "navigation away from the app refused"
        );
        return;
    }
    tracing::info!(
        scheme = url.scheme(),
        "link opened in the browser, not in the app"
    );
    if let Err(err) = app.opener().open_url(url.as_str(), None::<&str>) {
        tracing::warn!(error = %err, "could not open a link in the browser");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_stay_on_the_apps_own_origin() {
        let url = |s: &str| tauri::Url::parse(s).unwrap();
        let dev = url("http://127.0.0.1:1420");
        for own in [
            "tauri://localhost/index.html",
            "tauri://localhost",
            "http://tauri.localhost/index.html",
            "https://tauri.localhost/",
            "about:blank",
        ] {
            assert!(is_app_url(&url(own), None), "{own}");
        }
        assert!(is_app_url(
            &url("http://127.0.0.1:1420/index.html"),
            Some(&dev)
        ));
        for other in [
            "https://example.com/",
            "http://localhost:1420/",
            "http://127.0.0.1:1420/",
            "http://127.0.0.1:1421/",
            "https://tauri.localhost.example.com/",
            "http://tauri.localhost:8080/",
            "tauri://localhost.evil/",
            "file:///etc/passwd",
            "mailto:someone@example.com",
            "javascript:alert(1)",
            "data:text/html,hi",
            "about:srcdoc",
        ] {
            assert!(!is_app_url(&url(other), None), "{other}");
        }
        // The dev server counts only when given (development builds).
        assert!(!is_app_url(&url("http://localhost:1420/"), Some(&dev)));
        assert!(opens_outside(&url("https://example.com/a?b")));
        assert!(opens_outside(&url("mailto:a@example.com")));
        assert!(!opens_outside(&url("file:///etc/passwd")));
        assert!(!opens_outside(&url("javascript:alert(1)")));
    }
}
