//! What every suite's tests share: the binary, the bad-input check, the
//! schema check and the helpers of the lab tests.

pub(crate) use assert_cmd::Command;
pub(crate) use std::path::Path;
pub(crate) use std::time::{Duration, Instant};

/// The binary, with a cache directory of this test run's own: a tuning
/// measured while the tests load both cores is not one a user's run should
/// read back.
pub(crate) fn ango() -> Command {
    static CACHE: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    let dir = CACHE.get_or_init(|| tempfile::tempdir().unwrap());
    let mut c = Command::cargo_bin("ango").unwrap();
    c.env("XDG_CACHE_HOME", dir.path());
    c
}

/// Terminal text with its line breaks and runs of spaces made single
/// spaces: what it says, however it was wrapped to 100 columns.
pub(crate) fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Bad input: exit 2, one line on stderr naming the valid choices, nothing on
/// stdout, nothing written.
pub(crate) fn rejects(args: &[&str], must_mention: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut full: Vec<&str> = args.to_vec();
    let out_s = out.to_str().unwrap().to_string();
    if args[0] == "speed" || args[0] == "run" {
        full.extend(["--out", &out_s]);
    }
    let a = ango().args(&full).assert().code(2);
    let o = a.get_output();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(
        err.contains(must_mention),
        "{args:?}: '{err}' lacks '{must_mention}'"
    );
    assert!(o.stdout.is_empty(), "{args:?}");
    assert!(!out.exists(), "{args:?} wrote {}", out.display());
}

/// docs/schema.md documents exactly the fields of `object` in the field
/// table under `## {heading}` (names split at commas, backticks dropped).
pub(crate) fn assert_documented(heading: &str, object: &serde_json::Value) {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/schema.md"))
        .unwrap();
    let section = doc
        .split(&format!("## {heading}"))
        .nth(1)
        .unwrap_or_else(|| panic!("no section '{heading}' in docs/schema.md"));
    let section = section.split("\n## ").next().unwrap();
    let mut documented: Vec<String> = section
        .lines()
        .skip_while(|l| !l.starts_with("| field"))
        .filter(|l| l.starts_with("| `"))
        .flat_map(|l| {
            l.split('|')
                .nth(1)
                .unwrap()
                .split(',')
                .map(|f| f.trim().trim_matches('`').to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    let mut fields: Vec<String> = object.as_object().unwrap().keys().cloned().collect();
    fields.sort();
    documented.sort();
    assert_eq!(fields, documented, "{heading}");
}

pub(crate) fn records(dir: &Path) -> Vec<ango_core::SpeedRecord> {
    let text = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    assert!(text.ends_with('\n'));
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Namespaces of the TLS lab made by process `pid`.
#[cfg(unix)]
pub(crate) fn lab_namespaces(pid: u32) -> Vec<String> {
    let out = std::process::Command::new("ip")
        .args(["netns", "list"])
        .output();
    let prefix = format!("ango-{pid}-");
    out.map(|o| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|n| n.starts_with(&prefix))
            .map(String::from)
            .collect()
    })
    .unwrap_or_default()
}

/// Copy a checked-in results directory to a temporary one (ango report
/// writes into the directory it reads).
pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// The processes (by pid) whose environment holds `mark`: the run started
/// with it and every endpoint process it started.
#[cfg(target_os = "linux")]
pub(crate) fn processes_marked(mark: &str) -> Vec<u32> {
    let needle = format!("ANGO_TEST_MARK={mark}");
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|kv| kv == needle.as_bytes()))
        })
        .collect()
}

/// Two network namespaces joined by one veth pair and sharing nothing
/// else: two hosts for `tls-server` / `tls --connect`. Removed on drop.
#[cfg(unix)]
pub(crate) struct TwoHosts {
    pub(crate) server_ns: String,
    pub(crate) client_ns: String,
}

#[cfg(unix)]
impl TwoHosts {
    pub(crate) fn new(tag: &str) -> TwoHosts {
        let id = format!("angoth{}{tag}", std::process::id());
        let h = TwoHosts {
            server_ns: format!("{id}-s"),
            client_ns: format!("{id}-c"),
        };
        let ip = |args: &[&str]| {
            let ok = std::process::Command::new("ip")
                .args(args)
                .status()
                .unwrap()
                .success();
            assert!(ok, "ip {args:?}");
        };
        let (vs, vc) = (format!("{id}s"), format!("{id}c"));
        ip(&["netns", "add", &h.server_ns]);
        ip(&["netns", "add", &h.client_ns]);
        ip(&["link", "add", &vs, "type", "veth", "peer", "name", &vc]);
        ip(&["link", "set", &vs, "netns", &h.server_ns]);
        ip(&["link", "set", &vc, "netns", &h.client_ns]);
        for (ns, dev, addr) in [
            (&h.server_ns, &vs, "10.199.0.1/24"),
            (&h.client_ns, &vc, "10.199.0.2/24"),
        ] {
            ip(&["-n", ns, "addr", "add", addr, "dev", dev]);
            ip(&["-n", ns, "link", "set", dev, "up"]);
            ip(&["-n", ns, "link", "set", "lo", "up"]);
        }
        h
    }

    /// `ango ARGS` in namespace `ns`, optionally as user nobody.
    pub(crate) fn ango(&self, ns: &str, nobody: bool) -> std::process::Command {
        let mut c = std::process::Command::new("ip");
        c.args(["netns", "exec", ns]);
        if nobody {
            c.args([
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
            ]);
        }
        c.arg(assert_cmd::cargo::cargo_bin("ango"));
        c
    }
}

#[cfg(unix)]
impl Drop for TwoHosts {
    fn drop(&mut self) {
        for ns in [&self.server_ns, &self.client_ns] {
            let _ = std::process::Command::new("ip")
                .args(["netns", "del", ns])
                .status();
        }
    }
}

/// Starts `tls-server` and reads its token from its first lines.
#[cfg(unix)]
pub(crate) fn start_tls_server(cmd: std::process::Command) -> (ServerChild, String) {
    let ((child, _addr), token) = start_tls_server_at(cmd);
    (child, token)
}

#[cfg(unix)]
pub(crate) fn connect_records(hosts: &TwoHosts, token: &str, out: &Path) -> Vec<serde_json::Value> {
    let client = hosts
        .ango(&hosts.client_ns, false)
        .args(["tls", "--connect", "10.199.0.1:4433", "--token", token])
        .args(["--groups", "x25519", "--server-sig", "p-256,ml-dsa-44"])
        .args(["--ca-sig", "p-256", "--handshakes", "10"])
        .args(["--client-stack", "both", "--server-stack", "both"])
        .args(["--format", "json", "--out"])
        .arg(out)
        .output()
        .unwrap();
    assert!(
        client.status.success(),
        "{}",
        String::from_utf8_lossy(&client.stderr)
    );
    serde_json::from_slice(&client.stdout).unwrap()
}

/// [`start_tls_server`] that also returns the address it printed.
/// A `tls-server` child that is killed if the test fails before it ends.
pub(crate) struct ServerChild(Option<std::process::Child>);

impl ServerChild {
    pub(crate) fn id(&self) -> u32 {
        self.0.as_ref().expect("running").id()
    }

    /// Waits for it to end and returns what it wrote.
    pub(crate) fn finish(mut self) -> std::process::Output {
        self.0.take().expect("running").wait_with_output().unwrap()
    }
}

impl Drop for ServerChild {
    fn drop(&mut self) {
        if let Some(c) = self.0.as_mut() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

pub(crate) fn start_tls_server_at(
    mut cmd: std::process::Command,
) -> ((ServerChild, String), String) {
    use std::io::BufRead;
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first = lines.next().unwrap().unwrap();
    let addr = first
        .split("listening on ")
        .nth(1)
        .and_then(|r| r.split(';').next())
        .unwrap()
        .to_string();
    let token = lines.next().unwrap().unwrap();
    let token = token.strip_prefix("token: ").unwrap().to_string();
    // Keep reading: a closed pipe would end the server with SIGPIPE.
    std::thread::spawn(move || lines.for_each(drop));
    ((ServerChild(Some(child)), addr), token)
}

/// The headless browser `scripts/setup` installs (Debian's
/// chromium-headless-shell); a missing one fails the test with the fix.
pub(crate) fn headless_browser() -> std::path::PathBuf {
    for name in ["chromium-headless-shell", "chromium"] {
        for dir in ["/usr/bin", "/usr/lib/chromium"] {
            let p = Path::new(dir).join(name);
            if p.exists() {
                return p;
            }
        }
    }
    panic!(
        "no headless browser: run scripts/setup (it installs Debian's chromium-headless-shell) \
         before the tests"
    );
}
