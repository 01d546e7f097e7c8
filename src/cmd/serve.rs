use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;

use crate::serve::limits::Limits;
use crate::serve::{serve, ServeOptions};

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The glossary project's root folder.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// Port to listen on; 0 picks a free one (printed at start).
    #[arg(long, default_value_t = 8000)]
    pub port: u16,
    /// Address to listen on. The default keeps the preview on this machine.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Also show unpublished entries, each marked as a draft.
    #[arg(long)]
    pub drafts: bool,
    /// For tests only: lower the server's time limits and connection bound (the defaults
    /// and why are in `serve::limits`), so a test need not wait 30 s or open 1024 sockets.
    #[arg(long, hide = true, value_name = "MS")]
    pub test_idle_timeout_ms: Option<u64>,
    #[arg(long, hide = true, value_name = "MS")]
    pub test_header_timeout_ms: Option<u64>,
    #[arg(long, hide = true, value_name = "N")]
    pub test_max_connections: Option<usize>,
}

pub fn run(args: &ServeArgs) -> Result<()> {
    serve(&ServeOptions {
        root: args.root.clone(),
        bind: args.bind,
        port: args.port,
        drafts: args.drafts,
        limits: limits(args),
    })?;
    Ok(())
}

fn limits(args: &ServeArgs) -> Limits {
    let mut limits = Limits::default();
    if let Some(ms) = args.test_idle_timeout_ms {
        limits.idle_timeout = Duration::from_millis(ms);
    }
    if let Some(ms) = args.test_header_timeout_ms {
        limits.header_read_timeout = Duration::from_millis(ms);
    }
    if let Some(n) = args.test_max_connections {
        limits.max_connections = n;
    }
    limits
}
