use std::net::IpAddr;
use std::path::PathBuf;

use anyhow::Result;

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
}

pub fn run(args: &ServeArgs) -> Result<()> {
    serve(&ServeOptions {
        root: args.root.clone(),
        bind: args.bind,
        port: args.port,
        drafts: args.drafts,
    })?;
    Ok(())
}
