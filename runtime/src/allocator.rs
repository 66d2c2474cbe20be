//! The allocator a server's `main` declares (`#[global_allocator]`): mimalloc, with its
//! memory committed as it is used.
//!
//! A guarded call makes a few dozen short-lived allocations (the parsed arguments, the result's
//! JSON, the reply, the audit line). glibc's allocator spends about a tenth of the call's
//! instructions on them; mimalloc's per-thread free lists take a fraction of that, and a server
//! at sixteen connections serves about a tenth more calls a second (BENCHMARKS.md, 2b).
//!
//! On Linux mimalloc commits the whole first arena it reserves at once, since the kernel
//! overcommits anyway: about 10 MiB more resident memory for an idle server. [`Allocator`] turns
//! that off before its first allocation, so a server at rest stays as small as it is on glibc.
//!
//! Binaries choose their allocator, libraries do not: the runtime only offers it. A project
//! whose tool bodies bring their own global allocator (or that wants the system's) drops the
//! declaration from its `main.rs` and the runtime's default `mimalloc` feature.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, Ordering};

use mimalloc::MiMalloc;

/// `mi_option_arena_eager_commit` in mimalloc.h's `mi_option_t` (libmimalloc-sys names only
/// some of the options).
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;

/// Whether mimalloc has been told to commit lazily (every thread checks before allocating, so
/// the first allocation of the process, whichever thread makes it, finds it unset).
static CONFIGURED: AtomicBool = AtomicBool::new(false);

/// mimalloc, committing memory as it is used. A server's `main.rs` declares it:
///
/// ```
/// #[global_allocator]
/// static ALLOCATOR: harness_runtime::Allocator = harness_runtime::Allocator;
/// # fn main() {}
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Allocator;

impl Allocator {
    #[inline]
    fn configure() {
        if !CONFIGURED.load(Ordering::Relaxed) {
            // SAFETY: setting an option is a store into mimalloc's option table; it allocates
            // nothing, and a second thread doing the same at once stores the same value.
            unsafe { libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0) };
            CONFIGURED.store(true, Ordering::Relaxed);
        }
    }
}

// SAFETY: every method hands its arguments, unchanged, to mimalloc's own `GlobalAlloc`, whose
// contract is the same; `configure` only sets an option before the first allocation.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        Self::configure();
        // SAFETY: the caller's guarantees for `alloc` are MiMalloc's.
        unsafe { MiMalloc.alloc(layout) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        Self::configure();
        // SAFETY: the caller's guarantees for `alloc_zeroed` are MiMalloc's.
        unsafe { MiMalloc.alloc_zeroed(layout) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from MiMalloc, with `layout`.
        unsafe { MiMalloc.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from MiMalloc with `layout`; the caller's guarantees for
        // `new_size` are MiMalloc's.
        unsafe { MiMalloc.realloc(ptr, layout, new_size) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_allocation_turns_eager_commit_off_and_memory_round_trips() {
        let layout = Layout::from_size_align(24, 8).unwrap();
        // SAFETY: a non-zero layout; the block is written within it, grown by `realloc`
        // with the same layout, and freed once with the layout it then has.
        unsafe {
            let block = Allocator.alloc(layout);
            assert!(!block.is_null());
            assert_eq!(libmimalloc_sys::mi_option_get(ARENA_EAGER_COMMIT), 0);
            block.copy_from_nonoverlapping(b"the guarded call's reply".as_ptr(), 24);
            let grown = Allocator.realloc(block, layout, 4096);
            assert_eq!(
                std::slice::from_raw_parts(grown, 24),
                b"the guarded call's reply"
            );
            Allocator.dealloc(grown, Layout::from_size_align(4096, 8).unwrap());
            let zeroed = Allocator.alloc_zeroed(Layout::from_size_align(1 << 16, 64).unwrap());
            assert_eq!(zeroed as usize % 64, 0);
            assert!(
                std::slice::from_raw_parts(zeroed, 1 << 16)
                    .iter()
                    .all(|&byte| byte == 0)
            );
            Allocator.dealloc(zeroed, Layout::from_size_align(1 << 16, 64).unwrap());
        }
    }
}
