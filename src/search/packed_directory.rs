//! The directory a saved index opens in: its files are slices of the one buffer `segments.bin`
//! was read into, not copies of it, so loading holds the index's bytes once (a `RamDirectory`
//! copies every file it is given: twice the bytes at the peak, and wasm memory never shrinks
//! back). What is written later goes to a `RamDirectory` beside them.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use tantivy::directory::error::{DeleteError, OpenReadError, OpenWriteError};
use tantivy::directory::{Directory, FileHandle, OwnedBytes, RamDirectory, WatchCallback, WatchHandle, WritePtr};

/// Files read from one buffer, and the files written since.
#[derive(Clone, Debug)]
pub(crate) struct PackedDirectory {
    packed: Arc<HashMap<PathBuf, OwnedBytes>>,
    /// Packed files deleted or replaced since.
    gone: Arc<RwLock<HashSet<PathBuf>>>,
    written: RamDirectory,
}

impl PackedDirectory {
    /// A directory holding `files`, each a slice of the same buffer.
    pub(crate) fn new(files: HashMap<PathBuf, OwnedBytes>) -> Self {
        PackedDirectory { packed: Arc::new(files), gone: Arc::default(), written: RamDirectory::create() }
    }

    fn packed(&self, path: &Path) -> Option<&OwnedBytes> {
        let gone = self.gone.read().map(|gone| gone.contains(path)).unwrap_or(true);
        self.packed.get(path).filter(|_| !gone)
    }

    fn forget(&self, path: &Path) {
        if self.packed.contains_key(path) {
            if let Ok(mut gone) = self.gone.write() {
                gone.insert(path.to_path_buf());
            }
        }
    }
}

impl Directory for PackedDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        match self.packed(path) {
            Some(bytes) => Ok(Arc::new(bytes.clone())),
            None => self.written.get_file_handle(path),
        }
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        if self.packed(path).is_some() {
            self.forget(path);
            return Ok(());
        }
        self.written.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        Ok(self.packed(path).is_some() || self.written.exists(path)?)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        if self.packed(path).is_some() {
            return Err(OpenWriteError::FileAlreadyExists(path.to_path_buf()));
        }
        self.written.open_write(path)
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        match self.packed(path) {
            Some(bytes) => Ok(bytes.as_slice().to_vec()),
            None => self.written.atomic_read(path),
        }
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.forget(path);
        self.written.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        Ok(())
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.written.watch(watch_callback)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_files_read_as_slices_and_give_way_to_what_is_written() {
        let buffer = OwnedBytes::new(b"meta-bytes|segment-bytes".to_vec());
        let files = HashMap::from([
            (PathBuf::from("meta.json"), buffer.slice(0..10)),
            (PathBuf::from("a.idx"), buffer.slice(11..24)),
        ]);
        let dir = PackedDirectory::new(files);
        let handle = dir.get_file_handle(Path::new("a.idx")).unwrap();
        assert_eq!(handle.read_bytes(0..13).unwrap().as_slice(), b"segment-bytes");
        // The slice shares the buffer: no copy was made.
        let bytes = dir.packed(Path::new("a.idx")).unwrap();
        assert_eq!(bytes.as_slice().as_ptr(), buffer.as_slice()[11..].as_ptr());
        assert!(dir.open_write(Path::new("a.idx")).is_err(), "write once");

        dir.atomic_write(Path::new("meta.json"), b"new meta").unwrap();
        assert_eq!(dir.atomic_read(Path::new("meta.json")).unwrap(), b"new meta");
        dir.delete(Path::new("a.idx")).unwrap();
        assert!(!dir.exists(Path::new("a.idx")).unwrap());
        assert!(dir.get_file_handle(Path::new("a.idx")).is_err());
        assert!(dir.delete(Path::new("a.idx")).is_err());
    }
}
