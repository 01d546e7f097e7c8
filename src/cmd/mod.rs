//! One file per subcommand: parse nothing here (clap did), call the library, print.

pub mod build;
pub mod check;
pub mod compare;
pub mod fleet;
pub mod init_node;
pub mod new;
pub mod occupancy;
pub mod records;
pub mod reproduce;
pub mod review;
pub mod rotate_key;
pub mod serve;
pub mod verify;

/// Whether `e` is stdout's reader having gone away (EPIPE). Subcommands write with
/// `write!` rather than `print!`, which panics on it.
pub fn is_closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
