//! ango-verify's integration tests, in one test binary: each binary links
//! every library of the catalog, so one link instead of three keeps the
//! test build shorter.

mod fuzz_regressions;
mod kat_all_backends;
mod pk_untimed;
