//! A sweep on a real scheduler: a single-node Slurm started here (Debian's
//! `slurm-wlm` and `munge`, as root), the job array of `docs/sweep.md`
//! submitted as written there, its four shards merged, and the merge
//! compared with the unsharded sweep byte for byte. Slow and root-only, so
//! ignored by a plain `cargo test`; `make test` runs it in a stage of its
//! own (`--ignored`).

#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn sluice() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_sluice"))
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The job script of `docs/sweep.md`'s "On Slurm": the `bash` block that
/// begins with `#SBATCH` lines.
fn recipe() -> String {
    let doc = std::fs::read_to_string(repo().join("docs/sweep.md")).unwrap();
    let section = &doc[doc.find("### On Slurm").expect("docs/sweep.md has its \"On Slurm\" section")..];
    let start = section.find("```bash\n#!/bin/bash\n#SBATCH").expect("the section holds a job script") + "```bash\n".len();
    let end = start + section[start..].find("```").unwrap();
    section[start..end].to_string()
}

fn run(command: &mut Command) -> String {
    let out = command.output().unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert!(out.status.success(), "{command:?}: {}\n{}", String::from_utf8_lossy(&out.stderr), String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The Slurm daemons and munged this test started, stopped however it
/// ends.
struct Cluster {
    conf: PathBuf,
    dir: PathBuf,
    munged: bool,
}

impl Cluster {
    fn slurm(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", &self.conf);
        c
    }

    fn logs(&self) -> String {
        ["slurmctld.log", "slurmd.log"]
            .iter()
            .map(|f| format!("--- {f}\n{}", std::fs::read_to_string(self.dir.join(f)).unwrap_or_default()))
            .collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.slurm("scontrol").arg("shutdown").status();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline && ["slurmctld", "slurmd"].iter().any(|p| Command::new("pgrep").args(["-x", p]).stdout(Stdio::null()).status().is_ok_and(|s| s.success())) {
            std::thread::sleep(Duration::from_millis(200));
        }
        if self.munged {
            let _ = Command::new("runuser").args(["-u", "munge", "--", "munged", "--stop"]).status();
        }
    }
}

/// A munged with the key Debian's package made (started unless one
/// answers already), a dozen lines of slurm.conf in `dir`, `slurmctld` and
/// `slurmd`, and the node idle.
fn start(dir: &Path) -> Cluster {
    let munged = !Command::new("bash").args(["-c", "munge -n | unmunge"]).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success());
    if munged {
        run(Command::new("bash").args(["-c", "mkdir -p /run/munge && chown munge:munge /run/munge && chmod 755 /run/munge"]));
        run(Command::new("runuser").args(["-u", "munge", "--", "munged"]));
    }
    let host = run(Command::new("hostname").arg("-s")).trim().to_string();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    for sub in ["state", "spool"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let d = dir.display();
    let conf = format!(
        "ClusterName=sluice\nSlurmctldHost={host}\nSlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\n\
         ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSelectType=select/cons_tres\nReturnToService=2\n\
         StateSaveLocation={d}/state\nSlurmdSpoolDir={d}/spool\nSlurmctldPidFile={d}/slurmctld.pid\nSlurmdPidFile={d}/slurmd.pid\n\
         SlurmctldLogFile={d}/slurmctld.log\nSlurmdLogFile={d}/slurmd.log\n\
         NodeName={host} CPUs={cpus} State=UNKNOWN\nPartitionName=sweep Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n"
    );
    let conf_path = dir.join("slurm.conf");
    std::fs::write(&conf_path, conf).unwrap();
    let cluster = Cluster { conf: conf_path, dir: dir.to_path_buf(), munged };
    run(&mut cluster.slurm("slurmctld"));
    run(&mut cluster.slurm("slurmd"));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let state = cluster.slurm("sinfo").args(["-h", "-o", "%T"]).output().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string()).unwrap_or_default();
        if state == "idle" {
            break;
        }
        assert!(Instant::now() < deadline, "the node is {state:?}, not idle, after 60 s\n{}", cluster.logs());
        std::thread::sleep(Duration::from_millis(300));
    }
    cluster
}

/// Waits for `child` at most `limit`, killing it past that.
fn wait(mut child: Child, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.success();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            return false;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
#[ignore = "starts a Slurm cluster as root: make test runs it (scripts/test.sh, stage slurm)"]
fn a_sweep_sharded_as_a_slurm_job_array_merges_into_the_unsharded_sweep() {
    let script = recipe();
    let shard = "--shard \"$SLURM_ARRAY_TASK_ID/4\"";
    let into = "> \"part-$SLURM_ARRAY_TASK_ID.json\"";
    assert!(script.contains("#SBATCH --array=0-3") && script.contains(shard) && script.contains(into), "{script}");

    let dir = std::env::temp_dir().join(format!("sluice-slurm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("scenarios")).unwrap();
    std::fs::copy(repo().join("scenarios/queueing-theory.json"), dir.join("scenarios/queueing-theory.json")).unwrap();
    std::fs::write(dir.join("sweep.sbatch"), &script).unwrap();
    // `sluice` on the PATH, as the recipe names it.
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(sluice(), bin.join("sluice")).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());

    let started = Instant::now();
    let cluster = start(&dir.join("cluster"));
    let submit = cluster.slurm("sbatch").args(["--wait", "sweep.sbatch"]).current_dir(&dir).env("PATH", &path).spawn().unwrap();
    assert!(wait(submit, Duration::from_secs(300)), "the job array did not end well within 300 s\n{}", cluster.logs());
    let parts: Vec<PathBuf> = (0..4).map(|i| dir.join(format!("part-{i}.json"))).collect();
    let merged = run(Command::new(sluice()).args(["sweep", "merge"]).args(&parts));
    println!("Slurm: four shards run and merged in {:.1} s", started.elapsed().as_secs_f64());
    drop(cluster);

    // The same command, unsharded, here.
    let whole = script.lines().filter(|l| !l.starts_with('#')).collect::<Vec<_>>().join("\n").replace(shard, "").replace(into, "");
    let expected = run(Command::new("bash").args(["-c", &whole]).current_dir(&dir).env("PATH", &path));
    assert!(expected.contains("\"points\""), "{expected}");
    assert_eq!(merged, expected, "the merged shards differ from the unsharded sweep");
    let json: serde_json::Value = serde_json::from_str(&merged).unwrap();
    assert_eq!(json["points"].as_array().unwrap().len(), 16);
    let _ = std::fs::remove_dir_all(&dir);
}
