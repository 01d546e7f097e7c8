//! What the review workflow (`sign`, `diff`, `status`) reads. The pipeline loads it (see
//! `pipeline::Project::review_input`) and passes it down, so review never reaches up
//! into the pipeline and sees exactly what a build would.

use std::path::PathBuf;

use crate::content::{Content, Entry, EntryId};
use crate::measure::Library;
use crate::trust::People;

use super::error::ReviewError;
use super::signatures::SignOffs;

pub struct ReviewInput<'a> {
    pub content: &'a Content,
    pub library: &'a Library,
    pub signoffs: &'a SignOffs,
    /// Who may sign, with which keys.
    pub people: &'a People,
    /// `content/reviews/`, where signatures are written.
    pub reviews: PathBuf,
}

impl ReviewInput<'_> {
    /// The entry `id` names, or an error naming it.
    pub fn entry(&self, id: &EntryId) -> Result<&Entry, ReviewError> {
        self.content
            .get(id)
            .ok_or_else(|| ReviewError::UnknownEntry {
                query: id.to_string(),
            })
    }
}
