//! `LocalBlobs`: the blob store on a local directory (`LEDGER_BLOB_DIR`).
//!
//! Keys are made by the domain (`org_<ULID>/att_<ULID>`), never by clients; each key is
//! still checked to be plain segments of ASCII letters, digits and `_`, so no key can
//! name a path outside the directory. A blob is written to a temporary file in the
//! directory, flushed, and renamed into place, so a reader sees all of it or none.

use std::path::{Path, PathBuf};

use ledger_domain::StoreError;
use ledger_domain::ports::{Blobs, BoxFuture, StoreResult};

/// A blob store in a local directory.
#[derive(Debug, Clone)]
pub struct LocalBlobs {
    root: PathBuf,
}

impl LocalBlobs {
    /// A store under `root` (created on the first write).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The directory blobs live under.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file of `key`, or a refusal of a key that is not plain segments.
    fn path_of(&self, key: &str) -> StoreResult<PathBuf> {
        let plain = !key.is_empty()
            && key.split('/').all(|segment| {
                !segment.is_empty()
                    && segment
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'_')
            });
        if !plain {
            return Err(StoreError::Internal(format!(
                "refusing the blob key '{key}'"
            )));
        }
        Ok(key
            .split('/')
            .fold(self.root.clone(), |path, s| path.join(s)))
    }
}

fn io_error(what: &str, key: &str, e: &std::io::Error) -> StoreError {
    StoreError::Internal(format!("blob store: {what} '{key}': {e}"))
}

impl Blobs for LocalBlobs {
    fn put(&self, key: &str, bytes: Vec<u8>) -> BoxFuture<'_, StoreResult<()>> {
        let key = key.to_owned();
        Box::pin(async move {
            let path = self.path_of(&key)?;
            let dir = path
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| self.root.clone());
            let temp = dir.join(format!(".tmp-{}", ulid::Ulid::new()));
            let written = async {
                tokio::fs::create_dir_all(&dir).await?;
                let mut file = tokio::fs::File::create(&temp).await?;
                tokio::io::AsyncWriteExt::write_all(&mut file, &bytes).await?;
                file.sync_all().await?;
                drop(file);
                tokio::fs::rename(&temp, &path).await
            }
            .await;
            if let Err(e) = written {
                let _ = tokio::fs::remove_file(&temp).await;
                return Err(io_error("writing", &key, &e));
            }
            Ok(())
        })
    }

    fn get(&self, key: &str) -> BoxFuture<'_, StoreResult<Option<Vec<u8>>>> {
        let key = key.to_owned();
        Box::pin(async move {
            let path = self.path_of(&key)?;
            match tokio::fs::read(&path).await {
                Ok(bytes) => Ok(Some(bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(io_error("reading", &key, &e)),
            }
        })
    }

    fn delete(&self, key: &str) -> BoxFuture<'_, StoreResult<()>> {
        let key = key.to_owned();
        Box::pin(async move {
            let path = self.path_of(&key)?;
            match tokio::fs::remove_file(&path).await {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(e) => Err(io_error("removing", &key, &e)),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_could_leave_the_directory_are_refused() {
        let blobs = LocalBlobs::new("/data/blobs");
        for key in [
            "",
            "../x",
            "a/../b",
            "/etc/passwd",
            "a//b",
            "a\\b",
            "a/.",
            "a b",
        ] {
            assert!(blobs.path_of(key).is_err(), "{key:?}");
        }
        assert_eq!(
            blobs.path_of("org_1/att_2").ok(),
            Some(PathBuf::from("/data/blobs/org_1/att_2"))
        );
    }
}
