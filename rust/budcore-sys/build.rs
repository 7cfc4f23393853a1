// Finds libbudcore: BUDCORE_LIB_DIR first (a directory holding libbudcore.so), then
// pkg-config's budcore.pc restricted to the ABI this crate was written for (0.1.x; the
// SOVERSION is 0.<minor> while on 0.x, so a new minor is a new ABI).
use std::env;

const ABI_RANGE: std::ops::Range<&str> = "0.1.0".."0.2.0";

fn main() {
    println!("cargo:rerun-if-env-changed=BUDCORE_LIB_DIR");
    println!("cargo:rerun-if-changed=build.rs");
    if let Ok(dir) = env::var("BUDCORE_LIB_DIR") {
        println!("cargo:rustc-link-search=native={dir}");
        println!("cargo:rustc-link-lib=dylib=budcore");
        return;
    }
    match pkg_config::Config::new()
        .range_version(ABI_RANGE)
        .probe("budcore")
    {
        Ok(lib) => {
            // Exposed to dependents' build scripts as DEP_BUDCORE_INCLUDE.
            if let Some(inc) = lib.include_paths.first() {
                println!("cargo:include={}", inc.display());
            }
        }
        Err(e) => panic!(
            "libbudcore {}..{} not found: {e}\n\
             Install it (`make install-dev`) and set PKG_CONFIG_PATH=<prefix>/lib/pkgconfig, \
             or set BUDCORE_LIB_DIR to the directory holding libbudcore.so.",
            ABI_RANGE.start, ABI_RANGE.end
        ),
    }
}
