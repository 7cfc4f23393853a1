//! Raw declarations of libbudcore's C ABI. Use the `budcore` crate for a safe API.
//! `src/bindings.rs` is bindgen's output for `include/budcore/budcore.h`
//! (`scripts/rust-bindings.sh`; ctest `capi.rust_bindings` fails when it is stale).

#[allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code, clippy::all)]
mod bindings;
pub use bindings::*;

/// `BUDCORE_BUF_INIT` (a C initializer macro, which bindgen does not translate).
pub const BUDCORE_BUF_INIT: budcore_buf = budcore_buf { ptr: std::ptr::null_mut(), size: 0 };

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;
    use std::mem::{align_of, offset_of, size_of};

    #[test]
    fn struct_layouts_match_the_c_header() {
        assert_eq!(size_of::<budcore_buf>(), 2 * size_of::<usize>());
        assert_eq!(offset_of!(budcore_buf, size), size_of::<usize>());
        assert_eq!(align_of::<budcore_error>(), align_of::<*const u8>());
        assert_eq!(offset_of!(budcore_error, message), size_of::<*const u8>());
        assert_eq!(offset_of!(budcore_error, retry_after_ms), 4 * size_of::<*const u8>());
        // kind, line and column were added at the end: the older members keep their offsets.
        assert_eq!(offset_of!(budcore_error, kind), 5 * size_of::<*const u8>());
        assert_eq!(offset_of!(budcore_error, line), 6 * size_of::<*const u8>());
        assert_eq!(offset_of!(budcore_error, column), offset_of!(budcore_error, line) + 4);
        assert_eq!(size_of::<budcore_error>(), 7 * size_of::<*const u8>());
        // budcore_caller starts with its version.
        assert_eq!(offset_of!(budcore_caller, version), 0);
        assert_eq!(offset_of!(budcore_caller, tenant), size_of::<*const u8>());
    }

    #[test]
    fn linked_library_matches_these_declarations() {
        let (mut ma, mut mi, mut pa) = (-1, -1, -1);
        assert_eq!(
            unsafe { budcore_version(&mut ma, &mut mi, &mut pa) },
            BUDCORE_OK
        );
        assert_eq!((ma as u32, mi as u32), (BUDCORE_VERSION_MAJOR, BUDCORE_VERSION_MINOR));
        let s = unsafe { CStr::from_ptr(budcore_version_string()) };
        assert_eq!(s.to_bytes_with_nul(), BUDCORE_VERSION_STRING);
    }

    #[test]
    fn strerror_names_every_code() {
        let s = unsafe { CStr::from_ptr(budcore_strerror(BUDCORE_EINVALID)) };
        assert_eq!(s.to_str().unwrap(), "invalid input");
    }
}
