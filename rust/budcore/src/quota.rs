//! An admission engine with Kueue's semantics over the C ABI (`budcore_quota_engine_*`): add
//! workloads as they arrive, run cycles, finish workloads, read statuses. Documents are the
//! JSON of docs/cli.md contract 2.

use std::os::raw::c_char;

use crate::{check, sys, Buf, Error};

fn text(s: &str) -> (*const c_char, usize) {
    (s.as_ptr().cast(), s.len())
}

/// An admission engine; calls on one engine are serialized inside it, so it may be shared
/// between threads.
pub struct QuotaEngine(*mut sys::budcore_quota_engine);

// SAFETY: the library serializes every call on one engine with its own mutex.
unsafe impl Send for QuotaEngine {}
unsafe impl Sync for QuotaEngine {}

impl QuotaEngine {
    /// An engine from a scenario document (contract 2): its configuration and fair-sharing
    /// options; its workloads, if any, are added. `Invalid` names the field.
    pub fn new(scenario_json: &str) -> Result<Self, Error> {
        let mut e = std::ptr::null_mut();
        let (p, n) = text(scenario_json);
        // SAFETY: a valid out-pointer and a live slice; the library copies what it keeps.
        check(unsafe { sys::budcore_quota_engine_new(&mut e, p, n) })?;
        Ok(QuotaEngine(e))
    }

    /// Adds one workload (an entry of contract 2's "workloads").
    pub fn add(&self, workload_json: &str) -> Result<(), Error> {
        let (p, n) = text(workload_json);
        // SAFETY: a live handle and slice.
        check(unsafe { sys::budcore_quota_engine_add(self.0, p, n) })
    }

    /// The workload `key` ("namespace/name") ends; its cohort tree's waiting workloads are requeued.
    pub fn finish(&self, key: &str) -> Result<(), Error> {
        let (p, n) = text(key);
        // SAFETY: a live handle and slice.
        check(unsafe { sys::budcore_quota_engine_finish(self.0, p, n) })
    }

    /// One scheduling cycle: `{"admitted", "preempted", "released", "changed"}`.
    pub fn cycle(&self) -> Result<String, Error> {
        let mut out = Buf::new();
        // SAFETY: a live handle and an empty buf.
        check(unsafe { sys::budcore_quota_engine_cycle(out.as_mut_ptr(), self.0) })?;
        Ok(out.to_string_lossy())
    }

    /// Cycles until one changes nothing (at most `max_cycles`); the number run.
    pub fn run(&self, max_cycles: i64) -> Result<i64, Error> {
        let mut cycles = 0i64;
        // SAFETY: a live handle and a valid out-pointer.
        check(unsafe { sys::budcore_quota_engine_run(&mut cycles, self.0, max_cycles) })?;
        Ok(cycles)
    }

    /// A workload's status (`NotFound` for an unknown key).
    pub fn status(&self, key: &str) -> Result<String, Error> {
        let mut out = Buf::new();
        let (p, n) = text(key);
        // SAFETY: a live handle, an empty buf and a live slice.
        check(unsafe { sys::budcore_quota_engine_status(out.as_mut_ptr(), self.0, p, n) })?;
        Ok(out.to_string_lossy())
    }

    /// Every workload's status as a JSON list, in the order they were added.
    pub fn statuses(&self) -> Result<String, Error> {
        let mut out = Buf::new();
        // SAFETY: a live handle and an empty buf.
        check(unsafe { sys::budcore_quota_engine_statuses(out.as_mut_ptr(), self.0) })?;
        Ok(out.to_string_lossy())
    }
}

impl Drop for QuotaEngine {
    fn drop(&mut self) {
        // SAFETY: the handle came from budcore_quota_engine_new and is freed once.
        unsafe { sys::budcore_quota_engine_free(self.0) }
    }
}
