//! The tools a task can offer, by name.

use std::rc::Rc;

use super::DynTool;

/// An ordered set of tools with unique names.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<Rc<dyn DynTool>>,
}

impl ToolRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `tool`, replacing a tool of the same name.
    pub fn register(&mut self, tool: Rc<dyn DynTool>) {
        self.tools.retain(|t| t.name() != tool.name());
        self.tools.push(tool);
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&Rc<dyn DynTool>> {
        self.tools.iter().find(|t| t.name() == name)
    }

    /// Every tool, in registration order.
    pub fn iter(&self) -> impl Iterator<Item = &Rc<dyn DynTool>> {
        self.tools.iter()
    }

    /// Every tool's name, in registration order.
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name()).collect()
    }
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}
