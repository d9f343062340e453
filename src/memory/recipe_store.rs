//! The recipe store: `.obsidian-agent/memory/recipes.json`, read and written whole like the
//! memory store. Recipes are learned from runs that completed, counted against by runs that
//! failed, were denied or undone, and matched to a new request by its words (the term ranking
//! memory recall uses) and, where both have one, by its vector.

use serde::{Deserialize, Serialize};

use super::recall::TermRanker;
use super::{json_file, Recipe, RecipeStep};
use crate::vault::Vault;
use crate::Result;

/// The store.
pub const RECIPE_FILE: &str = ".obsidian-agent/memory/recipes.json";

/// Net successes (successes less failures) a recipe needs before a request takes its fast path.
pub const FAST_PATH_SUCCESSES: i64 = 3;

/// A request matches a recipe whose words it shares this much of, both ways (see
/// [`term_similarity`]).
pub const TERM_MATCH: f64 = 0.6;
/// Or, where both have vectors of the same embedder, at this cosine — and still sharing
/// [`TERM_FLOOR`] of its words, so a vector alone never matches an unrelated request.
pub const COSINE_MATCH: f32 = 0.9;
pub const TERM_FLOOR: f64 = 0.3;

/// Most recipes kept; past it the one with the fewest net successes (then the oldest) goes.
const MAX_RECIPES: usize = 100;

#[derive(Serialize, Deserialize)]
struct StoreFile {
    version: u32,
    recipes: Vec<Recipe>,
}

const VERSION: u32 = 1;

/// A request's vector and the embedder that made it.
#[derive(Debug, Clone, Copy)]
pub struct RequestVector<'a> {
    pub embedder: &'a str,
    pub vector: &'a [f32],
}

/// Every recipe, as loaded. Changes stay in memory until [`RecipeStore::save`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecipeStore {
    recipes: Vec<Recipe>,
}

impl RecipeStore {
    /// Reads the store; missing is empty, one that does not parse is an error (and is never
    /// overwritten).
    pub async fn load(vault: &dyn Vault) -> Result<Self> {
        let file = json_file::load::<StoreFile>(vault, RECIPE_FILE, "a recipe store").await?;
        Ok(RecipeStore { recipes: file.map(|f| f.recipes).unwrap_or_default() })
    }

    /// Loads the store, applies `change` and saves it when `change` says it changed something.
    pub async fn update(vault: &dyn Vault, change: impl FnOnce(&mut RecipeStore) -> bool) -> Result<bool> {
        let mut store = RecipeStore::load(vault).await?;
        let changed = change(&mut store);
        if changed {
            store.save(vault).await?;
        }
        Ok(changed)
    }

    /// Writes the store, whole.
    pub async fn save(&self, vault: &dyn Vault) -> Result<()> {
        json_file::save(vault, RECIPE_FILE, &StoreFile { version: VERSION, recipes: self.recipes.clone() }).await
    }

    /// Every recipe, oldest first.
    pub fn recipes(&self) -> &[Recipe] {
        &self.recipes
    }

    /// The recipe `id`.
    pub fn get(&self, id: &str) -> Option<&Recipe> {
        self.recipes.iter().find(|r| r.id == id)
    }

    /// The recipe `request` matches best (most similar; then most net successes), if any
    /// matches at all.
    pub fn find(&self, request: &str, vector: Option<RequestVector<'_>>) -> Option<&Recipe> {
        self.matching(request, vector).into_iter().next().map(|(i, _)| &self.recipes[i])
    }

    /// The recipe `request` takes the fast path with: the best match, if it has at least
    /// [`FAST_PATH_SUCCESSES`] net successes.
    pub fn fast_path(&self, request: &str, vector: Option<RequestVector<'_>>) -> Option<&Recipe> {
        self.find(request, vector).filter(|r| r.net() >= FAST_PATH_SUCCESSES)
    }

    /// Learns from a run of `request` that completed with `steps`: a matching recipe with the
    /// same tools counts a success (and takes the run's arguments); otherwise a new recipe
    /// with one success. Returns the recipe's id.
    pub fn learn(
        &mut self,
        request: &str,
        vector: Option<RequestVector<'_>>,
        steps: Vec<RecipeStep>,
        task_id: &str,
        now_ms: u64,
    ) -> String {
        let tools: Vec<&str> = steps.iter().map(|s| s.tool.as_str()).collect();
        let same =
            self.matching(request, vector).into_iter().map(|(i, _)| i).find(|&i| self.recipes[i].tools() == tools);
        if let Some(i) = same {
            let recipe = &mut self.recipes[i];
            recipe.steps = steps;
            recipe.credit(task_id, now_ms);
            return recipe.id.clone();
        }
        let next =
            self.recipes.iter().filter_map(|r| r.id.strip_prefix('r')?.parse::<u64>().ok()).max().unwrap_or(0) + 1;
        let mut recipe = Recipe {
            id: format!("r{next}"),
            request: request.to_string(),
            vector: vector.map(|v| v.vector.to_vec()),
            embedder: vector.map(|v| v.embedder.to_string()),
            steps,
            successes: 0,
            failures: 0,
            tasks: Vec::new(),
            updated_ms: now_ms,
        };
        recipe.credit(task_id, now_ms);
        let id = recipe.id.clone();
        self.recipes.push(recipe);
        if self.recipes.len() > MAX_RECIPES {
            let weakest = (0..self.recipes.len())
                .min_by_key(|&i| (self.recipes[i].net(), self.recipes[i].updated_ms))
                .unwrap_or(0);
            self.recipes.remove(weakest);
        }
        id
    }

    /// Counts a success of `task_id` for recipe `id` (its fast path answered). False when
    /// there is no such recipe.
    pub fn credit(&mut self, id: &str, task_id: &str, now_ms: u64) -> bool {
        let Some(recipe) = self.recipes.iter_mut().find(|r| r.id == id) else { return false };
        recipe.credit(task_id, now_ms);
        true
    }

    /// Counts a failure against recipe `id`. False when there is no such recipe.
    pub fn count_against(&mut self, id: &str, now_ms: u64) -> bool {
        let Some(recipe) = self.recipes.iter_mut().find(|r| r.id == id) else { return false };
        recipe.failures += 1;
        recipe.updated_ms = now_ms;
        true
    }

    /// Task `task_id` was undone: the recipe that counted its success takes it back and counts
    /// a failure; a recipe left with no success goes (it was learned from nothing that
    /// stood). Returns the recipe's id, if one had counted it.
    pub fn undone(&mut self, task_id: &str, now_ms: u64) -> Option<String> {
        let i = self.recipes.iter().position(|r| r.tasks.iter().any(|t| t == task_id))?;
        let recipe = &mut self.recipes[i];
        recipe.tasks.retain(|t| t != task_id);
        recipe.successes = recipe.successes.saturating_sub(1);
        recipe.failures += 1;
        recipe.updated_ms = now_ms;
        let id = recipe.id.clone();
        if recipe.successes == 0 {
            self.recipes.remove(i);
        }
        Some(id)
    }

    /// Removes recipe `id`.
    pub fn delete(&mut self, id: &str) -> Option<Recipe> {
        let at = self.recipes.iter().position(|r| r.id == id)?;
        Some(self.recipes.remove(at))
    }

    /// Removes every recipe.
    pub fn forget_all(&mut self) {
        self.recipes.clear();
    }

    /// The recipes `request` matches, best first, with their similarity.
    fn matching(&self, request: &str, vector: Option<RequestVector<'_>>) -> Vec<(usize, f64)> {
        let similarity = term_similarity(&self.recipes.iter().map(|r| r.request.as_str()).collect::<Vec<_>>(), request);
        let mut found: Vec<(usize, f64)> = similarity
            .into_iter()
            .enumerate()
            .filter_map(|(i, terms)| {
                let recipe = &self.recipes[i];
                let cosine = match (vector, &recipe.vector, &recipe.embedder) {
                    (Some(v), Some(theirs), Some(embedder)) if embedder == v.embedder => Some(dot(v.vector, theirs)),
                    _ => None,
                };
                let by_vector = cosine.is_some_and(|c| c >= COSINE_MATCH) && terms >= TERM_FLOOR;
                (terms >= TERM_MATCH || by_vector).then(|| (i, terms.max(f64::from(cosine.unwrap_or(0.0)))))
            })
            .collect();
        crate::sort::sort_by(&mut found, |a, b| {
            b.1.total_cmp(&a.1).then(self.recipes[b.0].net().cmp(&self.recipes[a.0].net()))
        });
        found
    }
}

/// How alike `request` is to each of `requests`, from 0 to 1, by the words they share: the
/// request's BM25 score against the recipe's text relative to that text's score against
/// itself (how much of the recipe's request it covers, its rarer words weighing more), and the
/// share of the request's words the recipe's text has (how much of the request the recipe
/// covers); the smaller of the two. The ranker is memory recall's (the index's analyser, stop
/// words and very common words left out), over the recipes' requests.
pub fn term_similarity(requests: &[&str], request: &str) -> Vec<f64> {
    let ranker = TermRanker::new(requests);
    let query = ranker.terms(request);
    (0..requests.len())
        .map(|i| {
            let theirs = ranker.doc_terms(i);
            let forward = ratio(ranker.score(&query, i), ranker.score(&theirs, i));
            let backward = ratio(query.intersection(&theirs).count() as f64, query.len() as f64);
            forward.min(backward).min(1.0)
        })
        .collect()
}

fn ratio(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        part / whole
    } else {
        0.0
    }
}

/// The cosine of two unit vectors (0 when their lengths differ).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    if a.len() != b.len() {
        return 0.0;
    }
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
