use std::io::IsTerminal;
use std::time::Duration;

use clap::Args;
use pi_context::environment::{vars, Vars};
use pi_context::sync::{self, Stage, SyncObserver, SyncOptions};

use super::CommonArgs;
use crate::cli::error::{exit, CommandError};
use crate::cli::printer;
use crate::cli::ui::{Progress, Ui};

/// Exchange the notes with a git remote: fetch, merge, push.
///
/// The remote is --remote (a remote's name or a URL), else the notes home repository's
/// `origin` (or its only remote), else the `notesRemote` Pi setting. A note changed on both
/// sides is merged line by line (its metadata key by key); when both changed the same lines,
/// both versions are kept in the note between conflict markers, committed and reported, and
/// `dream doctor` flags the note until someone resolves it. A delete against an edit keeps the
/// edit. Nothing is ever force-pushed.
///
/// Quiet when stdout is not a terminal (cron), unless something needs attention. Exit status:
/// 0 synced (conflicts kept included), 1 fetch or push failed (nothing lost), 2 no remote,
/// 74 the notes home or its repository cannot be used, 75 another sync or a dream runs.
#[derive(Debug, Args)]
pub struct SyncArgs {
    /// The remote: a name in the notes home's repository, or a URL
    #[arg(long, value_name = "URL|NAME")]
    remote: Option<String>,
    #[command(flatten)]
    common: CommonArgs,
}

pub fn run(args: SyncArgs, ui: &mut Ui, vars: &Vars) -> Result<u8, CommandError> {
    let env = args.common.environment(vars)?;
    let options = SyncOptions {
        identity: env.notes_identity()?,
        now: env.now(),
        remote: args.remote,
        setting_remote: env.settings().notes_remote.clone(),
        host: env.host_name(),
    };
    let mut observer = Observer::new(
        Progress::on_terminal(!args.common.json),
        env.var(vars::PI_CONTEXT_SYNC_TEST_PAUSE).as_deref(),
    );
    let outcome = sync::sync(&options, &mut observer);
    observer.finish();
    let outcome = outcome?;
    let verbose = std::io::stdout().is_terminal();
    printer::notes(args.common.json, ui.color, env.now()).synced(ui.out(), &outcome, verbose)?;
    Ok(exit::SUCCESS)
}

/// The sync's progress (a spinner saying the stage) and the test pause.
struct Observer {
    progress: Progress,
    pause: Option<(String, Duration)>,
}

impl Observer {
    fn new(mut progress: Progress, pause: Option<&str>) -> Observer {
        let pause = pause.map(|spec| match spec.split_once(':') {
            Some((point, ms)) => (
                point.to_string(),
                Duration::from_millis(ms.parse().unwrap_or(60_000)),
            ),
            None => (spec.to_string(), Duration::from_secs(60)),
        });
        progress.spin("");
        Observer { progress, pause }
    }

    fn finish(&mut self) {
        self.progress.finish();
    }
}

impl SyncObserver for Observer {
    fn stage(&mut self, stage: Stage, remote: &str) {
        self.progress.say(match stage {
            Stage::Fetching => format!("fetching from {remote}"),
            Stage::Merging => "merging".to_string(),
            Stage::Pushing => format!("pushing to {remote}"),
        });
    }

    fn reached(&mut self, point: &'static str) {
        if self.pause.as_ref().is_some_and(|(p, _)| p == point) {
            if let Some((_, duration)) = self.pause.take() {
                eprintln!("pi-context: test pause at {point}");
                std::thread::sleep(duration);
            }
        }
    }
}
