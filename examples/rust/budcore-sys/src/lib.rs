//! Raw declarations of libbudcore's C ABI. Use the `budcore` crate for a safe API.

mod bindings;
pub use bindings::*;

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
        assert_eq!(size_of::<budcore_error>(), 5 * size_of::<*const u8>());
    }

    #[test]
    fn linked_library_matches_these_declarations() {
        let (mut ma, mut mi, mut pa) = (-1, -1, -1);
        assert_eq!(
            unsafe { budcore_version(&mut ma, &mut mi, &mut pa) },
            BUDCORE_OK
        );
        assert_eq!((ma, mi), (BUDCORE_VERSION_MAJOR, BUDCORE_VERSION_MINOR));
        let s = unsafe { CStr::from_ptr(budcore_version_string()) };
        assert_eq!(s.to_str().unwrap(), BUDCORE_VERSION_STRING);
    }

    #[test]
    fn strerror_names_every_code() {
        let s = unsafe { CStr::from_ptr(budcore_strerror(BUDCORE_EINVALID)) };
        assert_eq!(s.to_str().unwrap(), "invalid input");
    }
}
