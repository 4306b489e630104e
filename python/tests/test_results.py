import json

from dbf0lab import results


def test_appender_writes_one_array_per_line_and_reads_back(tmp_path):
    path = tmp_path / "r.jsonl"
    with results.Appender(path) as out:
        out.append({"kind": "machine", "host": "local", "cores": 2})
        out.trial({"server_threads": 1, "trial_index": 0}, {"set": 1, "get": 2})
        out.trial(
            {"server_threads": 1, "trial_index": 1}, {"error": "timed out", "exit_code": None}
        )
    lines = path.read_text().splitlines()
    assert json.loads(lines[1]) == [{"server_threads": 1, "trial_index": 0}, {"set": 1, "get": 2}]
    content = results.read(path)
    assert len(content.trials) == 2 and content.machines[0]["cores"] == 2 and not content.bad_lines


def test_a_half_written_last_line_is_reported_and_the_next_append_starts_a_new_line(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('[{"trial_index": 0}, {"set": 1, "get": 1}]\n[{"trial_index": 1}, {"se')
    content = results.read(path)
    assert len(content.trials) == 1 and content.bad_lines[0][0] == 2
    with results.Appender(path) as out:
        out.trial({"trial_index": 2}, {"set": 1, "get": 1})
    content = results.read(path)
    assert [s["trial_index"] for s, _ in content.trials] == [0, 2]
    assert len(content.bad_lines) == 1


def test_spec_key_ignores_key_order_and_int_float_spelling():
    assert results.spec_key({"a": 10, "b": 0.5}) == results.spec_key({"b": 0.5, "a": 10.0})
    assert results.spec_key({"a": 1}) != results.spec_key({"a": 2})


def test_done_keys_can_leave_failures_to_be_retried(tmp_path):
    path = tmp_path / "r.jsonl"
    with results.Appender(path) as out:
        out.trial({"i": 0}, {"set": 1, "get": 1})
        out.trial({"i": 1}, {"error": "exit code 1", "exit_code": 1})
    content = results.read(path)
    assert results.done_keys(content, retry_failed=False) == {
        results.spec_key({"i": 0}),
        results.spec_key({"i": 1}),
    }
    assert results.done_keys(content, retry_failed=True) == {results.spec_key({"i": 0})}


def test_counts_in_words_make_their_plurals():
    from dbf0lab import words

    assert words.count(1, "trial") == "1 trial"
    assert words.count(0, "trial") == "0 trials"
    assert words.count(1200, "key") == "1,200 keys"
    assert words.count(2, "connection waits", "connections wait") == "2 connections wait"
