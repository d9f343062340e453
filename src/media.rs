//! Images and PDFs: which vault files are media, and what each becomes for the model (an image
//! block; a PDF as a document, or as its text where the provider reads no documents).

use base64::Engine;
use serde::Serialize;
use ts_rs::TS;

use crate::protocol::ContentBlock;
use crate::vault::{Vault, VaultPath};
use crate::{Error, Result};

/// The largest image sent, in bytes: Anthropic's limit per image (OpenAI's is higher).
pub const MAX_IMAGE_BYTES: usize = 5 * 1024 * 1024;

/// The largest PDF sent as a document, in bytes: Anthropic's request limit is 32 MB, and the
/// base64 text grows it by a third.
pub const MAX_PDF_BYTES: usize = 20 * 1024 * 1024;

/// The longest PDF text sent in place of the document, in characters.
pub const MAX_PDF_CHARS: usize = 40_000;

/// What kind of media a file is, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    /// An image the providers accept, with its media type.
    Image(&'static str),
    Pdf,
}

impl MediaKind {
    /// The kind of `path`, or `None` for a file that is not an image or a PDF.
    pub fn of(path: &VaultPath) -> Option<MediaKind> {
        let name = path.as_str();
        let extension = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
        Some(match extension.as_str() {
            "png" => MediaKind::Image("image/png"),
            "jpg" | "jpeg" => MediaKind::Image("image/jpeg"),
            "gif" => MediaKind::Image("image/gif"),
            "webp" => MediaKind::Image("image/webp"),
            "pdf" => MediaKind::Pdf,
            _ => return None,
        })
    }
}

/// How the model gets media: whether it sees images and reads PDFs itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
pub struct MediaSupport {
    pub images: bool,
    pub documents: bool,
}

impl MediaSupport {
    /// Images seen and PDFs read: what a provider takes unless told otherwise.
    pub const ALL: MediaSupport = MediaSupport { images: true, documents: true };
}

/// A media file as the model gets it: a text body (in place of a note's text) and the blocks
/// that follow the text.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaAttachment {
    /// What stands in the text: which block follows, the PDF's text, or why nothing does.
    pub body: String,
    /// The image or document, if the model takes it.
    pub blocks: Vec<ContentBlock>,
}

/// The media file at `path` for a model that takes what `support` says: an image, a PDF as a
/// document, or the PDF's text. An image a model cannot see becomes a line saying so. A file
/// too large, or not an image or a PDF, is an error that says so.
pub async fn attach_media(vault: &dyn Vault, path: &VaultPath, support: MediaSupport) -> Result<MediaAttachment> {
    let kind = MediaKind::of(path).ok_or_else(|| Error::Invalid(format!("{path} is not an image or a PDF")))?;
    let size = vault.stat(path).await?.ok_or_else(|| Error::NotFound(path.to_string()))?.size as usize;
    let name = path.as_str().rsplit('/').next().unwrap_or(path.as_str()).to_string();
    let attached = |body: &str, block| MediaAttachment { body: body.into(), blocks: vec![block] };
    Ok(match kind {
        MediaKind::Image(_) if !support.images => MediaAttachment {
            body: "[An image; not shown, because this model cannot see images.]".into(),
            blocks: Vec::new(),
        },
        MediaKind::Image(media_type) => {
            too_large(path, size, MAX_IMAGE_BYTES)?;
            let data = encode(&vault.read_binary(path).await?);
            attached("[An image: it follows this text.]", ContentBlock::Image { media_type: media_type.into(), data })
        }
        MediaKind::Pdf if support.documents => {
            too_large(path, size, MAX_PDF_BYTES)?;
            let data = encode(&vault.read_binary(path).await?);
            let document = ContentBlock::Document { media_type: "application/pdf".into(), data, name };
            attached("[A PDF: the document follows this text.]", document)
        }
        MediaKind::Pdf => {
            too_large(path, size, MAX_PDF_BYTES)?;
            MediaAttachment { body: pdf_text(vault, path).await?, blocks: Vec::new() }
        }
    })
}

/// The text of the PDF at `path` for the model, page by page (`--- page N ---` before each),
/// cut at [`MAX_PDF_CHARS`] with a line saying so. A PDF with no text layer (a scan) is an
/// error that says so.
pub async fn pdf_text(vault: &dyn Vault, path: &VaultPath) -> Result<String> {
    let pages = vault.pdf_pages(path).await?;
    let mut text = String::new();
    for (number, page) in pages.iter().enumerate() {
        let page = page.trim();
        if page.is_empty() {
            continue;
        }
        text.push_str(&format!("--- page {} ---\n{page}\n", number + 1));
        if text.chars().count() > MAX_PDF_CHARS {
            text = text.chars().take(MAX_PDF_CHARS).collect();
            text.push_str(&format!("\n[… cut at {MAX_PDF_CHARS} characters]"));
            break;
        }
    }
    if text.is_empty() {
        return Err(Error::Invalid(format!("{path} has no text layer (a scan?), and this model reads no PDFs")));
    }
    Ok(text)
}

/// [`Vault::pdf_pages`] as native builds do it: the file's bytes through lopdf. A page whose
/// text cannot be decoded is an empty page, not a failed file.
#[cfg(not(target_arch = "wasm32"))]
pub async fn read_pdf_pages<V: Vault + ?Sized>(vault: &V, path: &VaultPath) -> Result<Vec<String>> {
    let bytes = vault.read_binary(path).await?;
    let document =
        lopdf::Document::load_mem(&bytes).map_err(|e| Error::Invalid(format!("{path} is not a readable PDF: {e}")))?;
    Ok(document.get_pages().into_keys().map(|number| document.extract_text(&[number]).unwrap_or_default()).collect())
}

/// [`Vault::pdf_pages`] where the host has no PDF reader of its own.
#[cfg(target_arch = "wasm32")]
pub async fn read_pdf_pages<V: Vault + ?Sized>(_vault: &V, path: &VaultPath) -> Result<Vec<String>> {
    Err(Error::Invalid(format!("{path}: this host cannot read PDFs")))
}

fn too_large(path: &VaultPath, size: usize, limit: usize) -> Result<()> {
    if size > limit {
        return Err(Error::Invalid(format!("{path} is {} MB; the limit is {} MB", size >> 20, limit >> 20)));
    }
    Ok(())
}

fn encode(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vault::MemoryVault;

    /// A real two-page PDF (Helvetica text, one line a page).
    const REPORT: &[u8] = include_bytes!("../tests/fixtures/report.pdf");

    #[test]
    fn kinds_come_from_the_extension() {
        let kind = |p: &str| MediaKind::of(&VaultPath::parse(p).unwrap());
        assert_eq!(kind("a/Photo.JPG"), Some(MediaKind::Image("image/jpeg")));
        assert_eq!(kind("scan.pdf"), Some(MediaKind::Pdf));
        assert_eq!(kind("note.md"), None);
        assert_eq!(kind("png"), None);
    }

    #[test]
    fn a_pdf_gives_its_text_page_by_page() {
        let vault = MemoryVault::new();
        let path = VaultPath::parse("q3.pdf").unwrap();
        let pdf = |bytes: &[u8]| {
            futures::executor::block_on(async {
                vault.write_binary(&path, bytes).await.unwrap();
                pdf_text(&vault, &path).await
            })
        };
        let text = pdf(REPORT).unwrap();
        assert!(text.starts_with("--- page 1 ---\nQuarterly revenue grew by twelve percent."), "{text}");
        assert!(text.contains("--- page 2 ---\nThe Kyoto office opens in March."), "{text}");
        assert!(pdf(b"%PDF-1.4 not really").is_err());
    }

    #[test]
    fn media_become_the_blocks_the_model_can_take() {
        let vault = MemoryVault::new();
        futures::executor::block_on(async {
            let png = VaultPath::parse("img/cat.png").unwrap();
            vault.write_binary(&png, &[0x89, b'P', b'N', b'G']).await.unwrap();
            let pdf = VaultPath::parse("doc.pdf").unwrap();
            vault.write_binary(&pdf, REPORT).await.unwrap();
            let all = MediaSupport::ALL;
            let image = attach_media(&vault, &png, all).await.unwrap();
            assert_eq!(image.blocks, [ContentBlock::Image { media_type: "image/png".into(), data: "iVBORw==".into() }]);
            let blind = attach_media(&vault, &png, MediaSupport { images: false, documents: false }).await.unwrap();
            assert!(blind.blocks.is_empty() && blind.body.contains("cannot see images"));
            let document = attach_media(&vault, &pdf, all).await.unwrap();
            assert!(matches!(&document.blocks[..], [ContentBlock::Document { name, .. }] if name == "doc.pdf"));
            let text = attach_media(&vault, &pdf, MediaSupport { images: true, documents: false }).await.unwrap();
            assert!(text.blocks.is_empty() && text.body.contains("Kyoto office"), "{}", text.body);
            let note = VaultPath::parse("a.md").unwrap();
            vault.write(&note, "text").await.unwrap();
            assert!(attach_media(&vault, &note, all).await.is_err());
        });
    }
}
