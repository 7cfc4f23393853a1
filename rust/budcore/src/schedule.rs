//! Schedule timelines over the C ABI (schedule.h): contract-6 estimates, a live timeline that
//! takes what really happened, Kueue's performance replay and the HTML view. JSON in, JSON out.

use std::ptr::NonNull;

use crate::{check, sys, Buf, Error};

/// Runs `budcore schedule estimate` on a scenario (docs/cli.md contract 6) and returns
/// `{"jobs", "never", "makespan"}`; `details` adds wait reasons, warnings and utilization.
pub fn schedule_estimate(scenario_json: &str, details: bool) -> Result<String, Error> {
    let mut out = Buf::new();
    let flags = if details { sys::BUDCORE_SCHEDULE_DETAILS } else { 0 };
    // SAFETY: (ptr, len) describe a live slice; out is an empty buf.
    let rc = unsafe {
        sys::budcore_schedule_estimate(out.as_mut_ptr(), scenario_json.as_ptr().cast(), scenario_json.len(), flags)
    };
    check(rc)?;
    Ok(out.to_string_lossy())
}

/// Replays Kueue's scheduler-performance configuration: `"baseline"` or a generator config
/// (JSON with Kueue's generator.yaml keys). Returns the checker's metrics as JSON.
pub fn schedule_replay(config: &str) -> Result<String, Error> {
    let mut out = Buf::new();
    // SAFETY: as above.
    let rc = unsafe { sys::budcore_schedule_replay(out.as_mut_ptr(), config.as_ptr().cast(), config.len()) };
    check(rc)?;
    Ok(out.to_string_lossy())
}

/// The schedule view of a scenario as one self-contained HTML page.
pub fn schedule_html(scenario_json: &str) -> Result<String, Error> {
    let mut out = Buf::new();
    // SAFETY: as above.
    let rc = unsafe {
        sys::budcore_schedule_render_html(out.as_mut_ptr(), scenario_json.as_ptr().cast(), scenario_json.len())
    };
    check(rc)?;
    Ok(out.to_string_lossy())
}

/// A live timeline (`budcore_schedule_timeline`). Not `Sync`: one thread at a time (the header's rule).
pub struct Timeline {
    raw: NonNull<sys::budcore_schedule_timeline>,
}

// SAFETY: the handle may move between threads; it is only ever used by one at a time (&mut).
unsafe impl Send for Timeline {}

impl Timeline {
    /// Builds the timeline of a scenario (as for [`schedule_estimate`]).
    pub fn new(scenario_json: &str) -> Result<Timeline, Error> {
        let mut raw: *mut sys::budcore_schedule_timeline = std::ptr::null_mut();
        // SAFETY: raw is a valid out pointer; (ptr, len) a live slice.
        let rc = unsafe { sys::budcore_schedule_timeline_new(&mut raw, scenario_json.as_ptr().cast(), scenario_json.len()) };
        check(rc)?;
        Ok(Timeline { raw: NonNull::new(raw).expect("budcore_schedule_timeline_new returned OK with NULL") })
    }

    /// The current estimates as JSON.
    pub fn result(&self, details: bool) -> Result<String, Error> {
        let mut out = Buf::new();
        let flags = if details { sys::BUDCORE_SCHEDULE_DETAILS } else { 0 };
        // SAFETY: raw is live; out is an empty buf.
        let rc = unsafe { sys::budcore_schedule_timeline_result(out.as_mut_ptr(), self.raw.as_ptr(), flags) };
        check(rc)?;
        Ok(out.to_string_lossy())
    }

    /// Applies an event: `{"type": "finished", "name": "w1", "at": 60}` (see schedule.h).
    pub fn apply(&mut self, event_json: &str) -> Result<(), Error> {
        // SAFETY: raw is live and used by this thread only (&mut self).
        let rc = unsafe { sys::budcore_schedule_timeline_apply(self.raw.as_ptr(), event_json.as_ptr().cast(), event_json.len()) };
        check(rc)
    }

    /// A job ended at `at` (seconds since the epoch).
    pub fn finished(&mut self, name: &str, at: f64) -> Result<(), Error> {
        self.apply(&format!(r#"{{"type": "finished", "name": {}, "at": {}}}"#, json_string(name), at))
    }

    /// A job started at `at` with this admission (`{"cluster_queue", "flavors"}` JSON).
    pub fn started(&mut self, name: &str, at: f64, admission_json: &str) -> Result<(), Error> {
        self.apply(&format!(
            r#"{{"type": "started", "name": {}, "at": {}, "admission": {}}}"#,
            json_string(name),
            at,
            admission_json
        ))
    }
}

impl Drop for Timeline {
    fn drop(&mut self) {
        // SAFETY: raw came from budcore_schedule_timeline_new and is freed once.
        unsafe { sys::budcore_schedule_timeline_free(self.raw.as_ptr()) }
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
