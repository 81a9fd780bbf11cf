//! The terminal UI: `app` holds state and maps actions, `keymap` is the one table
//! of keys, `ui` draws. This module owns the terminal and the event loop.

pub mod app;
pub(crate) mod background;
pub mod compare_panel;
pub mod demo;
pub mod keymap;
pub mod layout;
pub mod picker;
/// The palette lives below the TUI (the configuration file checks `[theme]`).
pub use crate::theme;
pub mod ui;

use crate::analysis::Setup;
pub use crate::color::ColorChoice;
use crate::setup::{self, Opts, UsageError};
use crate::zone::Window;
use app::{App, Effect, Pointer, Screen};
use keymap::Action;
use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind, MouseEventKind,
};
use ratatui::crossterm::execute;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// A session loading in the background, with the bytes read so far.
struct Loading {
    path: PathBuf,
    total: u64,
    progress: Arc<AtomicU64>,
    /// The bytes read when the loading screen was last drawn.
    shown: Option<u64>,
    handle: JoinHandle<Result<Loaded, UsageError>>,
}

/// A session loaded as the TUI opens it, with the request `--at` names (or why it
/// names none of the session's requests).
pub type Loaded = (Setup, Result<usize, UsageError>);

/// Loads what the picker opens: a session, or one inline sub-agent thread of it
/// (only its lines read, planned as a what-if).
pub fn load_target(
    target: &picker::Target,
    opts: &Opts,
    progress: &AtomicU64,
) -> Result<Loaded, UsageError> {
    let Some((_, lines)) = &target.thread else {
        if let Some(id) = &target.session {
            let opts = Opts {
                session: Some(id.clone()),
                ..opts.clone()
            };
            return load_session(&target.path, &opts, progress);
        }
        return load_session(&target.path, opts, progress);
    };
    let (config, notice) = match crate::config::load() {
        Ok(c) => (c, None),
        Err(e) => (Default::default(), Some(format!("{e}: defaults used"))),
    };
    let path = &target.path;
    let session = crate::load::load_thread(path, lines.iter().copied().collect(), progress)?;
    let mut setup = setup::setup_with_config(session, path, opts, config)?;
    setup.settings.config_notice = notice;
    let at = setup::request_index(&setup.session, opts.at.as_deref());
    Ok((setup, at))
}

/// Loads a session for the TUI: every plan flag applies as it does to `plan`,
/// `--at` included.
pub fn load_session(path: &Path, opts: &Opts, progress: &AtomicU64) -> Result<Loaded, UsageError> {
    load_session_with(path, opts, progress, crate::config::load())
}

/// As [`load_session`], with the configuration file as read.
pub fn load_session_with(
    path: &Path,
    opts: &Opts,
    progress: &AtomicU64,
    config: Result<crate::config::Config, crate::config::ConfigError>,
) -> Result<Loaded, UsageError> {
    // A configuration file the TUI cannot use is said on screen; the defaults
    // serve meanwhile (the CLI stops instead).
    let (config, notice) = match config {
        Ok(c) => (c, None),
        Err(e) => (Default::default(), Some(format!("{e}: defaults used"))),
    };
    let path = &*crate::load::session_file(path);
    if path.is_dir() {
        return Err(setup::directory_error(path));
    }
    let session = crate::load::load_session(
        path,
        setup::input_format(opts),
        opts.session.as_deref(),
        progress,
    )?;
    let mut setup = setup::setup_with_config(session, path, opts, config)?;
    setup.settings.config_notice = notice;
    let at = setup::request_index(&setup.session, opts.at.as_deref());
    Ok((setup, at))
}

impl Loading {
    fn start(path: &Path, opts: &Opts) -> Loading {
        Loading::start_target(
            &picker::Target {
                path: path.to_path_buf(),
                thread: None,
                session: None,
            },
            opts,
        )
    }

    fn start_target(target: &picker::Target, opts: &Opts) -> Loading {
        let progress = Arc::new(AtomicU64::new(0));
        let p = progress.clone();
        let path = target.path.as_path();
        let target = target.clone();
        let opts = opts.clone();
        let handle = std::thread::spawn(move || load_target(&target, &opts, &p));
        Loading {
            path: path.to_path_buf(),
            total: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
            progress,
            shown: None,
            handle,
        }
    }

    /// Whether more was read since the loading screen was last drawn.
    fn moved(&mut self) -> bool {
        let now = Some(self.progress.load(Ordering::Relaxed));
        now != std::mem::replace(&mut self.shown, now)
    }
}

/// The TUI needs a terminal on both ends: off one (`</dev/null`, `| head`) it does
/// not start, and names the subcommands that print instead.
pub fn require_terminal() -> Result<(), UsageError> {
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        return Ok(());
    }
    Err(UsageError::NotATerminal)
}

/// `mcscope demo`: the bundled session with its guided captions.
pub fn run_demo(color: ColorChoice) -> Result<(), UsageError> {
    require_terminal()?;
    let dir = tempfile::tempdir().map_err(|e| UsageError::Demo(e.to_string()))?;
    let mut app = demo_app(dir.path())?;
    let opts = Opts::default();
    with_terminal(true, |terminal| {
        event_loop(
            terminal,
            &mut app,
            &mut None,
            &opts,
            theme_from_config(color),
            false,
        )
    })
}

/// The TUI's colours: whether (`--color`, `NO_COLOR`, `FORCE_COLOR`; the TUI
/// is always on a terminal) and which, the configuration file's `[theme]` (a
/// file that cannot be read: the defaults, and the session's notice says why).
fn theme_from_config(color: ColorChoice) -> ui::Theme {
    ui::Theme::with_choice(palette_of(&crate::config::load()), color)
}

/// The colours of a configuration as read: its `[theme]`, or the defaults for a
/// file that could not be used.
pub fn palette_of(
    config: &Result<crate::config::Config, crate::config::ConfigError>,
) -> theme::Palette {
    config.as_ref().map(|c| c.palette()).unwrap_or_default()
}

/// Runs `f` on the terminal in raw mode and the alternate screen, with mouse
/// capture when `mouse`; restores all three afterwards, on error, and on panic.
fn with_terminal(
    mouse: bool,
    f: impl FnOnce(&mut ratatui::DefaultTerminal) -> Result<(), UsageError>,
) -> Result<(), UsageError> {
    // ratatui::init's panic hook restores raw mode and the screen; the mouse too.
    let mut terminal = ratatui::init();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // A background thread's panic must not take the terminal from the UI,
        // which goes on and says that the job stopped (background::BACKGROUND).
        if std::thread::current()
            .name()
            .is_some_and(|n| n.starts_with(background::BACKGROUND))
        {
            return;
        }
        let _ = execute!(std::io::stdout(), DisableMouseCapture);
        previous(info);
    }));
    if mouse {
        let _ = execute!(std::io::stdout(), EnableMouseCapture);
    }
    MOUSE.store(mouse, Ordering::Relaxed);
    let result = f(&mut terminal);
    let _ = execute!(std::io::stdout(), DisableMouseCapture);
    ratatui::restore();
    result
}

/// The demo app at its first stage, its session written into `dir` (a temp folder).
pub fn demo_app(dir: &Path) -> Result<App, UsageError> {
    // A new name each time: a copy already there is a transcript, which the
    // writer never replaces.
    let path = (0..)
        .map(|n| match n {
            0 => dir.join("claude-demo.jsonl"),
            n => dir.join(format!("claude-demo-{n}.jsonl")),
        })
        .find(|p| std::fs::symlink_metadata(p).is_err())
        .unwrap_or_else(|| dir.join("claude-demo.jsonl"));
    // Through the one writer too: `dir` is the caller's, and may be anywhere.
    crate::export::write(
        &path,
        &crate::export::Reading::config(),
        demo::SESSION.as_bytes(),
    )
    .map_err(|e| UsageError::Demo(e.to_string()))?;
    let opts = Opts::default()
        .with("--keep-recent", "2")
        .with("--trigger", "3");
    let mut app = App::session(setup::setup(&path, &opts)?);
    if let Some(v) = app.view_mut() {
        v.demo_stage(0);
    }
    Ok(app)
}

/// Whether the mouse is captured (`--no-mouse` leaves it to the terminal): Ctrl-Z
/// gives it back and takes it again only then.
static MOUSE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// What the command line gives the TUI besides the plan options.
#[derive(Debug, Clone, Default)]
pub struct Launch {
    /// Capture the mouse (`--no-mouse` leaves it to the terminal).
    pub mouse: bool,
    pub color: ColorChoice,
    /// `--since`/`--until`: the picker's sessions.
    pub window: Window,
}

/// A session file as listed: its path, size and modification time.
pub type Listed = (PathBuf, u64, std::time::SystemTime);

/// The sessions a picker offers: those of `folders` (a folder that does not
/// exist is skipped when `skip_missing`, the harness folders' case; a folder
/// given by the user must be readable), newest first, in the date window. The
/// note says when none is left (SPEC §7a: the picker opens empty and says so).
pub fn picker_sessions(
    folders: &[PathBuf],
    skip_missing: bool,
    window: &Window,
) -> Result<(Vec<Listed>, usize, Option<String>), UsageError> {
    let mut sessions = Vec::new();
    // FIFOs, sockets and devices named like sessions: never opened, counted.
    let mut not_regular = 0;
    for dir in folders {
        if skip_missing && !dir.is_dir() {
            continue;
        }
        let listing = crate::load::list_folder(dir).map_err(|e| UsageError::io(dir, e))?;
        sessions.extend(listing.sessions);
        not_regular += listing.not_regular.len();
    }
    sessions.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
    let sessions = window.keep(sessions, |s| s.0.as_path());
    let note = sessions.is_empty().then(|| {
        let named: Vec<String> = folders.iter().map(|d| d.display().to_string()).collect();
        let within = match window.is_set() {
            true => format!(" {}", window.words()),
            false => String::new(),
        };
        format!(
            "no sessions{within} under {}; `mcscope demo` is a guided tour on a bundled session, and a clone of mcscope has more in sample-sessions/",
            named.join(" or ")
        )
    });
    Ok((sessions, not_regular, note))
}

/// The sessions of `path` when it is a database (an OpenCode `opencode.db`),
/// with its format; None for a session file.
fn database_sessions(
    path: &Path,
    opts: &Opts,
) -> Result<Option<(crate::session::Format, Vec<crate::load::DbSession>)>, UsageError> {
    let format = match setup::input_format(opts) {
        Some(f) => Some(f),
        None => crate::load::sniff(path),
    };
    match format {
        Some(f) if crate::load::holds_sessions(f) => {
            Ok(Some((f, crate::load::database_sessions(path)?)))
        }
        _ => Ok(None),
    }
}

/// `mcscope [PATH]`: a session, a folder of sessions, or the harness folders.
pub fn run(path: Option<&Path>, opts: &Opts, launch: &Launch) -> Result<(), UsageError> {
    // Decide what to show before touching the terminal, so errors are one plain line.
    let picker = |folders: Vec<PathBuf>, skip_missing: bool| {
        let (sessions, not_regular, note) =
            picker_sessions(&folders, skip_missing, &launch.window)?;
        if let Some(note) = note {
            eprintln!("mcscope: {}", crate::sanitize::line(&note));
        }
        crate::cli::say_unread(&folders);
        let title: Vec<String> = folders.iter().map(|d| d.display().to_string()).collect();
        let title = picker::with_skipped(title.join(" + "), not_regular);
        Ok::<_, UsageError>(App::picker(title, sessions))
    };
    let (mut app, mut loading) = match path {
        Some(p) if p.is_dir() && crate::load::session_file(p) == p => {
            (picker(vec![p.to_path_buf()], false)?, None)
        }
        Some(p) => {
            if launch.window.is_set() {
                return Err(UsageError::WindowNeedsFolder);
            }
            // A folder that is one session (a Cline task): its file.
            let p = &*crate::load::session_file(p);
            let meta = std::fs::metadata(p).map_err(|e| UsageError::io(p, e))?;
            if !meta.is_file() {
                // Said before the terminal is taken (the load would refuse it too).
                let what = crate::load::regular::describe(meta.file_type());
                return Err(UsageError::NotRegular {
                    path: p.display().to_string(),
                    what: what.to_string(),
                });
            }
            // A database of several sessions without `--session`: its own
            // picker (SPEC §15.14).
            if opts.session.is_none()
                && let Some((format, sessions)) = database_sessions(p, opts)?
                && sessions.len() > 1
            {
                let title = p.display().to_string();
                let picker = picker::Picker::of_database(title, p, format, &sessions);
                (App::with_picker(picker), None)
            } else {
                (
                    App::picker(String::new(), Vec::new()),
                    Some(Loading::start(p, opts)),
                )
            }
        }
        None => {
            let folders = crate::harness::session_folders();
            let (sessions, not_regular, note) = picker_sessions(&folders, true, &launch.window)?;
            // The harnesses' databases (OpenCode's `opencode.db`): their sessions too.
            let mut databases = Vec::new();
            for db in crate::harness::session_databases() {
                let Some(format) = crate::load::sniff(&db) else {
                    continue;
                };
                match crate::load::database_sessions(&db) {
                    Ok(s) => databases.push((db, format, s)),
                    Err(e) => eprintln!("mcscope: {}", crate::sanitize::line(&e.to_string())),
                }
            }
            let none_there = databases.iter().all(|(_, _, s)| s.is_empty());
            if let Some(note) = note.filter(|_| none_there) {
                eprintln!("mcscope: {}", crate::sanitize::line(&note));
            }
            let title: Vec<String> = folders
                .iter()
                .chain(databases.iter().map(|(db, _, _)| db))
                .map(|d| d.display().to_string())
                .collect();
            let title = picker::with_skipped(title.join(" + "), not_regular);
            let mut app = App::picker(title, sessions);
            if let crate::tui::app::Screen::Picker(p) = &mut app.screen {
                for (db, format, s) in &databases {
                    p.add_database(db, *format, s);
                }
            }
            (app, None)
        }
    };
    require_terminal()?;
    let from_picker = loading.is_none();
    with_terminal(launch.mouse, |terminal| {
        event_loop(
            terminal,
            &mut app,
            &mut loading,
            opts,
            theme_from_config(launch.color),
            from_picker,
        )
    })
}

fn event_loop(
    terminal: &mut ratatui::DefaultTerminal,
    app: &mut App,
    loading: &mut Option<Loading>,
    opts: &Opts,
    theme: ui::Theme,
    mut from_picker: bool,
) -> Result<(), UsageError> {
    loop {
        if let Some(l) = loading.take_if(|l| l.handle.is_finished()) {
            let (setup, at) = l.handle.join().map_err(|_| UsageError::LoaderPanicked {
                path: l.path.display().to_string(),
            })??;
            if from_picker {
                // One `--at` for a folder of sessions: those too short open at their last.
                let k = at.as_ref().map_or(setup.last_request(), |k| *k);
                app.open(setup, k);
                if let (Err(e), Some(v)) = (at, app.view_mut()) {
                    v.status = Some(format!("{e}; showing the last request"));
                }
            } else {
                *app = App::session_at(setup, at?);
            }
        }
        if let Ok(size) = terminal.size()
            && (size.width, size.height) != app.size
        {
            app.update(Action::Resize(size.width, size.height));
        }
        app.tick();
        // Drawn only when something shown changed (the loading screen: the bytes
        // read so far).
        let redraw = match loading.as_mut() {
            Some(l) => l.moved() | app.needs_redraw(),
            None => app.needs_redraw(),
        };
        if redraw {
            terminal
                .draw(|f| match loading {
                    Some(l) => ui::draw_loading(
                        f,
                        &l.path.display().to_string(),
                        l.progress.load(Ordering::Relaxed),
                        l.total,
                    ),
                    None => ui::draw(f, app, theme),
                })
                .map_err(|e| UsageError::Terminal(e.to_string()))?;
            app.drawn();
        }
        if app.quit {
            return Ok(());
        }
        // A diff on its way is drawn as soon as it lands, not at the next tick.
        let tick = if app.view().is_some_and(|v| v.diff_pending()) {
            Duration::from_millis(5)
        } else {
            Duration::from_millis(50)
        };
        if !event::poll(tick).map_err(|e| UsageError::Terminal(e.to_string()))? {
            continue;
        }
        let ev = event::read().map_err(|e| UsageError::Terminal(e.to_string()))?;
        let action = match ev {
            // While a session loads only giving up does anything.
            Event::Key(k) if loading.is_some() => keymap::loading_action(k),
            _ if loading.is_some() => None,
            Event::Key(k) if k.kind != KeyEventKind::Release => Some(keymap::key_action(
                k,
                matches!(app.screen, Screen::Picker(_)),
                app.in_text_input(),
            )),
            Event::Mouse(m) => match m.kind {
                MouseEventKind::ScrollDown => Some(Pointer::WheelDown),
                MouseEventKind::ScrollUp => Some(Pointer::WheelUp),
                MouseEventKind::Down(event::MouseButton::Left) => Some(Pointer::Click),
                _ => None,
            }
            .map(|p| Action::Pointer(p, m.column, m.row)),
            Event::Resize(w, h) => Some(Action::Resize(w, h)),
            _ => None,
        };
        let Some(action) = action else { continue };
        app.update(action);
        if app.quit {
            return Ok(());
        }
        for effect in app.take_effects() {
            match effect {
                Effect::Suspend => suspend(terminal)?,
                Effect::Open(t) => {
                    *loading = Some(Loading::start_target(&t, opts));
                    from_picker = true;
                }
                Effect::Copy(text) => {
                    use std::io::Write;
                    let mut out = std::io::stdout();
                    let _ = write!(out, "{}", osc52(&text)).and_then(|_| out.flush());
                }
            }
        }
    }
}

/// The OSC 52 sequence that puts `text` on the terminal's clipboard (it works
/// over ssh, and in tmux with `set-clipboard on`).
pub fn osc52(text: &str) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut b64 = String::with_capacity(text.len().div_ceil(3) * 4);
    for chunk in text.as_bytes().chunks(3) {
        let n = chunk.len();
        let v = (chunk[0] as u32) << 16
            | (chunk.get(1).copied().unwrap_or(0) as u32) << 8
            | chunk.get(2).copied().unwrap_or(0) as u32;
        for i in 0..4 {
            if i <= n {
                b64.push(ABC[(v >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                b64.push('=');
            }
        }
    }
    format!("\x1b]52;c;{b64}\x07")
}

/// Ctrl-Z: give the terminal back, stop (as the shell's job control expects), and
/// take the terminal again when continued with `fg`.
fn suspend(terminal: &mut ratatui::DefaultTerminal) -> Result<(), UsageError> {
    let _ = execute!(
        std::io::stdout(),
        DisableMouseCapture,
        ratatui::crossterm::cursor::Show
    );
    ratatui::restore();
    // SAFETY: raise has no memory-safety preconditions; SIGTSTP stops the process
    // until SIGCONT, then execution resumes here.
    #[allow(unsafe_code)]
    unsafe {
        libc::raise(libc::SIGTSTP);
    }
    *terminal = ratatui::try_init().map_err(|e| UsageError::Terminal(e.to_string()))?;
    if MOUSE.load(Ordering::Relaxed) {
        let _ = execute!(std::io::stdout(), EnableMouseCapture);
    }
    terminal
        .clear()
        .map_err(|e| UsageError::Terminal(e.to_string()))
}
