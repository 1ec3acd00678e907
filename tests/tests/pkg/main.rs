#[path = "../app/support/mod.rs"]
mod app_support;
mod deb;
