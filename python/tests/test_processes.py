"""dbf0lab.processes on a fake /proc and on this process."""

import os

from dbf0lab import processes


def fake_proc(tmp_path, pid, comm, utime, stime, children=""):
    d = tmp_path / str(pid)
    (d / "task" / str(pid)).mkdir(parents=True)
    (d / "comm").write_text(comm + "\n")
    # the command name may hold spaces and parentheses: fields are counted after the last ')'
    fields = ["S"] + ["0"] * 10 + [str(utime), str(stime)] + ["0"] * 5
    (d / "stat").write_text(f"{pid} ({comm} x) " + " ".join(fields) + "\n")
    (d / "task" / str(pid) / "children").write_text(children)


def test_cpu_seconds_adds_user_and_system_ticks(tmp_path):
    fake_proc(tmp_path, 7, "java", 300, 100)
    assert processes.cpu_seconds(7, tmp_path) == 400 / os.sysconf("SC_CLK_TCK")


def test_java_pid_finds_the_java_child_of_a_script(tmp_path):
    fake_proc(tmp_path, 10, "bash", 0, 0, children="11 12")
    fake_proc(tmp_path, 11, "sleep", 0, 0)
    fake_proc(tmp_path, 12, "java", 0, 0)
    assert processes.java_pid(10, tmp_path) == 12
    assert processes.java_pid(12, tmp_path) == 12
    fake_proc(tmp_path, 20, "bash", 0, 0, children="")
    assert processes.java_pid(20, tmp_path) == 20


def test_this_process_uses_some_cpu():
    assert processes.cpu_seconds(os.getpid()) > 0
