//! Where every check of the model reports: one [`ErrorStore`] per manifest and a tree of
//! [`ErrorSink`]s over it (dropshot's design). A check that must know whether it failed opens
//! a child sink and asks it afterwards, so failure is tracked by the sink that saw it, never by
//! an `ok` flag, and every problem still lands in the one store, in the order found.

use std::cell::RefCell;

use crate::diagnostics::Diagnostic;

/// Every problem found in one manifest, and which sinks saw one.
#[derive(Debug, Default)]
pub(crate) struct ErrorStore {
    // Sinks share the store through a `RefCell`: nested checks hold a parent's sink while
    // reporting into a child's, which `&mut` borrows could not express without threading
    // `&mut &mut ...` through every check. Each borrow lasts one call.
    data: RefCell<StoreData>,
}

#[derive(Debug, Default)]
struct StoreData {
    diagnostics: Vec<Diagnostic>,
    sinks: Vec<SinkState>,
}

#[derive(Debug)]
struct SinkState {
    parent: Option<usize>,
    /// Whether this sink or one of its descendants received a problem.
    failed: bool,
}

impl StoreData {
    fn register(&mut self, parent: Option<usize>) -> usize {
        self.sinks.push(SinkState {
            parent,
            failed: false,
        });
        self.sinks.len() - 1
    }

    fn report(&mut self, sink: usize, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
        let mut at = Some(sink);
        while let Some(index) = at {
            self.sinks[index].failed = true;
            at = self.sinks[index].parent;
        }
    }
}

impl ErrorStore {
    /// A top-level sink: what it and its children report lands here.
    pub(crate) fn sink(&self) -> ErrorSink<'_> {
        let id = self.data.borrow_mut().register(None);
        ErrorSink {
            data: &self.data,
            id,
        }
    }

    /// The problems, in the order they were reported.
    pub(crate) fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.data.into_inner().diagnostics
    }
}

/// One context problems are reported in. Its lifetime ties it to the [`ErrorStore`], so no sink
/// outlives the store that is read at the end.
#[derive(Debug)]
pub(crate) struct ErrorSink<'store> {
    data: &'store RefCell<StoreData>,
    id: usize,
}

impl<'store> ErrorSink<'store> {
    /// Records one problem here (and so in every ancestor).
    pub(crate) fn report(&self, diagnostic: Diagnostic) {
        self.data.borrow_mut().report(self.id, diagnostic);
    }

    /// A sink for a part of this check: its failure is this one's too, not the other way round.
    pub(crate) fn child(&self) -> ErrorSink<'store> {
        let id = self.data.borrow_mut().register(Some(self.id));
        ErrorSink {
            data: self.data,
            id,
        }
    }

    /// Whether this sink or one of its children received a problem.
    pub(crate) fn failed(&self) -> bool {
        self.data.borrow().sinks[self.id].failed
    }

    /// `value`, unless this sink or one of its children received a problem.
    pub(crate) fn unless_failed<T>(&self, value: T) -> Option<T> {
        (!self.failed()).then_some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::ErrorStore;
    use crate::diagnostics::Diagnostic;
    use crate::manifest_path::ManifestPath;

    fn problem(message: &str) -> Diagnostic {
        Diagnostic::value(ManifestPath::root(), message)
    }

    #[test]
    fn a_child_failure_fails_its_ancestors_and_not_its_siblings() {
        let store = ErrorStore::default();
        let root = store.sink();
        let (first, second) = (root.child(), root.child());
        let grandchild = first.child();
        assert!(!root.failed());
        grandchild.report(problem("a"));
        assert!(grandchild.failed() && first.failed() && root.failed());
        assert!(!second.failed());
        assert_eq!(second.unless_failed(1), Some(1));
        assert_eq!(first.unless_failed(1), None);
    }

    #[test]
    fn every_problem_is_kept_in_the_order_reported() {
        let store = ErrorStore::default();
        let root = store.sink();
        let child = root.child();
        child.report(problem("first"));
        root.report(problem("second"));
        child.child().report(problem("third"));
        let messages: Vec<String> = store
            .into_diagnostics()
            .into_iter()
            .map(|diagnostic| diagnostic.message)
            .collect();
        assert_eq!(messages, ["first", "second", "third"]);
    }
}
