//! The real `pi` for end-to-end tests, made ready with nothing preinstalled, and small fake `pi`
//! scripts for the failure paths.
//!
//! [`real_pi`] runs `scripts/setup-node` (which installs Node 22 into a cache directory when the
//! machine's node is older than Pi needs), then `npm ci` in `extension/` when
//! `extension/node_modules/.bin/pi` is missing, and checks that `pi --version` works. The setup
//! holds an flock in the target directory, so parallel test binaries never race on `npm ci`.
//! When anything fails the calling test panics with the reason: a test that needs the real Pi
//! never passes without it.
//!
//! [`faux_pi`] writes a wrapper script that runs that `pi` offline with the scripted faux model
//! (`extension/test/fixtures/faux-model.ts`, provider `faux`, model `faux-1`, replies from the
//! `FAUX_SCRIPT` environment variable).

use std::fs::{self, File};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The dreamer model pattern that selects the faux model.
pub const FAUX_MODEL: &str = "faux/faux-1";

/// A ready Pi installation.
#[derive(Debug)]
pub struct RealPi {
    /// The directory of a node >= 22.19, to put first on `PATH`.
    pub node_bin: PathBuf,
    /// `extension/node_modules/.bin/pi`.
    pub pi: PathBuf,
    /// The scripted model extension.
    pub faux_model: PathBuf,
}

/// The real Pi, set up once per test binary. Panics with the reason when it cannot be set up.
pub fn real_pi() -> &'static RealPi {
    static PI: OnceLock<Result<RealPi, String>> = OnceLock::new();
    match PI.get_or_init(setup) {
        Ok(pi) => pi,
        Err(reason) => panic!(
            "this test needs the real Pi (Node >= 22.19 and `npm ci` in extension/), \
             and setting it up failed:\n{reason}"
        ),
    }
}

fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn setup() -> Result<RealPi, String> {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
    fs::create_dir_all(target).map_err(|e| format!("cannot create {}: {e}", target.display()))?;
    let lock_path = target.join("pi-context-real-pi.lock");
    let lock = File::create(&lock_path)
        .map_err(|e| format!("cannot create the setup lock {}: {e}", lock_path.display()))?;
    lock.lock()
        .map_err(|e| format!("cannot lock {}: {e}", lock_path.display()))?;
    let result = setup_locked(target);
    let _ = lock.unlock();
    result
}

fn setup_locked(target: &Path) -> Result<RealPi, String> {
    let root = repo_root();
    let setup_node = root.join("scripts/setup-node");
    let output = run(&mut Command::new(&setup_node), "scripts/setup-node")?;
    let node_bin = String::from_utf8_lossy(&output.stdout)
        .lines()
        .last()
        .map(|l| PathBuf::from(l.trim()))
        .filter(|p| p.join("node").is_file())
        .ok_or_else(|| {
            format!(
                "scripts/setup-node printed no node directory:\n{}",
                describe(&output)
            )
        })?;
    let path = prepend_path(&node_bin);

    let extension = root.join("extension");
    let pi = extension.join("node_modules/.bin/pi");
    if !pi.exists() {
        let mut npm = Command::new("npm");
        npm.args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&extension)
            .env("PATH", &path);
        run(&mut npm, "npm ci in extension/")?;
        if !pi.exists() {
            return Err(format!(
                "`npm ci` in {} did not install {}",
                extension.display(),
                pi.display()
            ));
        }
    }
    let faux_model = extension.join("test/fixtures/faux-model.ts");
    if !faux_model.is_file() {
        return Err(format!(
            "the faux model {} is missing",
            faux_model.display()
        ));
    }
    let agent_dir = target.join("pi-context-real-pi-agent");
    let mut version = Command::new(&pi);
    version
        .arg("--version")
        .env("PATH", &path)
        .env("PI_OFFLINE", "1")
        .env("PI_CODING_AGENT_DIR", &agent_dir);
    run(&mut version, "pi --version")?;
    Ok(RealPi {
        node_bin,
        pi,
        faux_model,
    })
}

fn run(command: &mut Command, what: &str) -> Result<Output, String> {
    let output = command
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if output.status.success() {
        Ok(output)
    } else {
        Err(format!(
            "{what} failed ({}):\n{}",
            output.status,
            describe(&output)
        ))
    }
}

fn describe(output: &Output) -> String {
    format!(
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&output.stdout).trim(),
        String::from_utf8_lossy(&output.stderr).trim()
    )
}

fn prepend_path(dir: &Path) -> std::ffi::OsString {
    let mut dirs = vec![dir.to_path_buf()];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).expect("PATH entries")
}

/// Quotes `text` for a POSIX shell.
pub fn sh_quote(text: impl AsRef<std::ffi::OsStr>) -> String {
    let text = text.as_ref().to_string_lossy();
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// Writes an executable `#!/bin/sh` script and returns its path.
pub fn write_script(path: &Path, body: &str) -> PathBuf {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("create script dir");
    }
    fs::write(path, format!("#!/bin/sh\n{body}\n")).expect("write script");
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).expect("chmod script");
    path.to_path_buf()
}

/// Writes `<dir>/pi-faux`: the real `pi`, offline, with the faux model loaded (steps from
/// `FAUX_SCRIPT`). Pass `--dreamer faux/faux-1` (or the setting) to select the model.
pub fn faux_pi(dir: &Path) -> PathBuf {
    let pi = real_pi();
    write_script(
        &dir.join("pi-faux"),
        &format!(
            "PATH={}:\"$PATH\" exec {} --offline -e {} \"$@\"",
            sh_quote(&pi.node_bin),
            sh_quote(&pi.pi),
            sh_quote(&pi.faux_model)
        ),
    )
}
