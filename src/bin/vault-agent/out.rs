//! The CLI's standard output. A reader that closes the pipe early (`vault-agent search … |
//! head`) has what it wanted: the program ends quietly instead of panicking.

use std::io::{self, Write};

/// Writes `text` to stdout and flushes it. A closed pipe ends the process at once, with
/// success and no message; any other failure ends it with the error on stderr.
pub fn write(text: &str) {
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout.write_all(text.as_bytes()).and_then(|()| stdout.flush()) {
        if e.kind() == io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("vault-agent: cannot write to stdout: {e}");
        std::process::exit(1);
    }
}

/// `println!` for the CLI, through [`write`].
macro_rules! outln {
    () => {
        $crate::out::write("\n")
    };
    ($($arg:tt)*) => {
        $crate::out::write(&format!("{}\n", format_args!($($arg)*)))
    };
}
pub(crate) use outln;
