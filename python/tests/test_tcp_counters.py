"""The TCP counters of /proc/net/netstat: parsing a captured copy, the differences a trial
records, reading them here and over SSH (a local shell stands in for ssh), saying once where
there are none; then a real sweep on 127.0.0.1 that records them."""

import json
import re
from pathlib import Path

import pytest

from conftest import run_script
from dbf0lab import tcp_counters
from dbf0lab.hosts import LocalHost

# /proc/net/netstat of the development VM (Linux 6.18, 2 cores), captured after a few sweeps
NETSTAT = (
    "TcpExt: SyncookiesSent SyncookiesRecv SyncookiesFailed EmbryonicRsts PruneCalled "
    "RcvPruned OfoPruned OutOfWindowIcmps LockDroppedIcmps ArpFilter TW TWRecycled TWKilled "
    "PAWSActive PAWSEstab BeyondWindow TSEcrRejected PAWSOldAck PAWSTimewait DelayedACKs "
    "DelayedACKLocked DelayedACKLost ListenOverflows ListenDrops TCPHPHits TCPPureAcks "
    "TCPHPAcks TCPRenoRecovery TCPSackRecovery TCPSACKReneging TCPSACKReorder TCPRenoReorder "
    "TCPTSReorder TCPFullUndo TCPPartialUndo TCPDSACKUndo TCPLossUndo TCPLostRetransmit "
    "TCPRenoFailures TCPSackFailures TCPLossFailures TCPFastRetrans TCPSlowStartRetrans "
    "TCPTimeouts TCPLossProbes TCPLossProbeRecovery TCPRenoRecoveryFail TCPSackRecoveryFail "
    "TCPRcvCollapsed TCPBacklogCoalesce TCPDSACKOldSent TCPDSACKOfoSent TCPDSACKRecv "
    "TCPDSACKOfoRecv TCPAbortOnData TCPAbortOnClose TCPAbortOnMemory TCPAbortOnTimeout "
    "TCPAbortOnLinger TCPAbortFailed TCPMemoryPressures TCPMemoryPressuresChrono "
    "TCPSACKDiscard TCPDSACKIgnoredOld TCPDSACKIgnoredNoUndo TCPSpuriousRTOs TCPMD5NotFound "
    "TCPMD5Unexpected TCPMD5Failure TCPSackShifted TCPSackMerged TCPSackShiftFallback "
    "TCPBacklogDrop PFMemallocDrop TCPMinTTLDrop TCPDeferAcceptDrop IPReversePathFilter "
    "TCPTimeWaitOverflow TCPReqQFullDoCookies TCPReqQFullDrop TCPRetransFail TCPRcvCoalesce "
    "TCPOFOQueue TCPOFODrop TCPOFOMerge TCPChallengeACK TCPSYNChallenge TCPFastOpenActive "
    "TCPFastOpenActiveFail TCPFastOpenPassive TCPFastOpenPassiveFail "
    "TCPFastOpenListenOverflow TCPFastOpenCookieReqd TCPFastOpenBlackhole "
    "TCPSpuriousRtxHostQueues BusyPollRxPackets TCPAutoCorking TCPFromZeroWindowAdv "
    "TCPToZeroWindowAdv TCPWantZeroWindowAdv TCPSynRetrans TCPOrigDataSent "
    "TCPHystartTrainDetect TCPHystartTrainCwnd TCPHystartDelayDetect TCPHystartDelayCwnd "
    "TCPACKSkippedSynRecv TCPACKSkippedPAWS TCPACKSkippedSeq TCPACKSkippedFinWait2 "
    "TCPACKSkippedTimeWait TCPACKSkippedChallenge TCPWinProbe TCPKeepAlive TCPMTUPFail "
    "TCPMTUPSuccess TCPDelivered TCPDeliveredCE TCPAckCompressed TCPZeroWindowDrop "
    "TCPRcvQDrop TCPWqueueTooBig TCPFastOpenPassiveAltKey TcpTimeoutRehash "
    "TcpDuplicateDataRehash TCPDSACKRecvSegs TCPDSACKIgnoredDubious TCPMigrateReqSuccess "
    "TCPMigrateReqFailure TCPPLBRehash TCPAORequired TCPAOBad TCPAOKeyNotFound TCPAOGood "
    "TCPAODroppedIcmps\n"
    "TcpExt: 104 213 36 0 1 0 0 0 0 0 653641 921 0 0 0 0 0 0 0 11232 55 65 466 466 8635799 "
    "1972359 9009820 0 6 0 3 0 0 1 0 1 0 14 0 2 0 9 0 306 112 9 0 0 0 3612 66 0 62 0 95 70 0 "
    "0 0 0 0 0 0 0 56 0 0 0 0 0 0 12 0 0 0 0 0 0 104 0 0 475582 15 0 0 0 0 0 0 0 0 0 0 0 2 0 "
    "6 1407 1407 1715 302 11274975 0 0 0 0 0 0 1 0 0 0 2 0 0 0 11925287 0 0 0 0 0 0 306 0 64 "
    "0 0 0 0 0 0 0 0 0\n"
    "IpExt: InNoRoutes InTruncatedPkts InMcastPkts OutMcastPkts InBcastPkts OutBcastPkts "
    "InOctets OutOctets InMcastOctets OutMcastOctets InBcastOctets OutBcastOctets "
    "InCsumErrors InNoECTPkts InECT1Pkts InECT0Pkts InCEPkts ReasmOverlaps\n"
    "IpExt: 0 0 0 0 0 0 3008874169 2544082503 0 0 0 0 0 15152766 0 0 0 0\n"
    "MPTcpExt: MPCapableSYNRX MPCapableSYNTX MPCapableSYNACKRX MPCapableACKRX "
    "MPCapableFallbackACK MPCapableFallbackSYNACK MPCapableSYNTXDrop MPCapableSYNTXDisabled "
    "MPCapableEndpAttempt MPFallbackTokenInit MPTCPRetrans MPJoinNoTokenFound MPJoinSynRx "
    "MPJoinSynBackupRx MPJoinSynAckRx MPJoinSynAckBackupRx MPJoinSynAckHMacFailure "
    "MPJoinAckRx MPJoinAckHMacFailure MPJoinRejected MPJoinSynTx MPJoinSynTxCreatSkErr "
    "MPJoinSynTxBindErr MPJoinSynTxConnectErr DSSNotMatching DSSCorruptionFallback "
    "DSSCorruptionReset InfiniteMapTx InfiniteMapRx DSSNoMatchTCP DataCsumErr OFOQueueTail "
    "OFOQueue OFOMerge NoDSSInWindow DuplicateData AddAddr AddAddrTx AddAddrTxDrop EchoAdd "
    "EchoAddTx EchoAddTxDrop PortAdd AddAddrDrop MPJoinPortSynRx MPJoinPortSynAckRx "
    "MPJoinPortAckRx MismatchPortSynRx MismatchPortAckRx RmAddr RmAddrDrop RmAddrTx "
    "RmAddrTxDrop RmSubflow MPPrioTx MPPrioRx MPFailTx MPFailRx MPFastcloseTx MPFastcloseRx "
    "MPRstTx MPRstRx SubflowStale SubflowRecover SndWndShared RcvWndShared "
    "RcvWndConflictUpdate RcvWndConflict MPCurrEstab Blackhole MPCapableDataFallback "
    "MD5SigFallback DssFallback SimultConnectFallback FallbackFailed WinProbe\n"
    "MPTcpExt: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
    "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
)


def test_the_three_counters_are_read_from_their_pair_of_lines():
    tables = tcp_counters.parse(NETSTAT)
    assert set(tables) == {"TcpExt", "IpExt", "MPTcpExt"}
    assert tables["TcpExt"]["TW"] == 653641  # the fields line up with their names
    assert tables["IpExt"]["InNoRoutes"] == 0
    assert tcp_counters.pick(NETSTAT) == {
        "listen_overflows": 466,
        "listen_drops": 466,
        "syn_retrans": 302,
    }


def test_a_kernel_without_a_counter_leaves_it_out_and_a_broken_pair_is_refused():
    text = "TcpExt: ListenOverflows ListenDrops\nTcpExt: 3 4\n"
    assert tcp_counters.pick(text) == {"listen_overflows": 3, "listen_drops": 4}
    with pytest.raises(ValueError, match="2 names but 1 values"):
        tcp_counters.parse("TcpExt: ListenOverflows ListenDrops\nTcpExt: 3\n")


def test_a_trial_records_what_the_counters_did_during_it():
    before = {"listen_overflows": 466, "listen_drops": 466, "syn_retrans": 302}
    after = {"listen_overflows": 469, "listen_drops": 470, "syn_retrans": 305}
    assert tcp_counters.delta(before, after) == {
        "listen_overflows": 3,
        "listen_drops": 4,
        "syn_retrans": 3,
    }
    assert tcp_counters.delta(before, before) == dict.fromkeys(before, 0)
    assert tcp_counters.delta(None, after) == {} and tcp_counters.delta(before, None) == {}
    assert tcp_counters.delta(after, before) == {}  # went back: the host rebooted in between


def test_a_trial_with_roles_adds_up_its_hosts():
    a = {"listen_overflows": 2, "listen_drops": 2, "syn_retrans": 0}
    b = {"listen_overflows": 0, "listen_drops": 0, "syn_retrans": 2}
    assert tcp_counters.total([a, b]) == {
        "listen_overflows": 2,
        "listen_drops": 2,
        "syn_retrans": 2,
    }
    assert tcp_counters.total([a, {}]) == {}  # one host unread: no total to trust


def test_local_and_remote_readings(tmp_path):
    fake = tmp_path / "netstat"
    fake.write_text(NETSTAT)
    assert tcp_counters.read_local(fake)["syn_retrans"] == 302
    assert tcp_counters.read_local(tmp_path / "absent") is None  # macOS has no /proc
    # the remote path runs `cat /proc/net/netstat` through the ssh argv it is given
    seen = []

    def shell(command):
        seen.append(command)
        return ["sh", "-c", command.replace("/proc/net/netstat", str(fake))]

    assert tcp_counters.read_remote(shell, 10) == tcp_counters.pick(NETSTAT)
    assert seen == ["cat /proc/net/netstat"]
    assert tcp_counters.read_remote(lambda command: ["false"], 10) is None


def test_a_host_without_counters_is_named_once(tmp_path, monkeypatch):
    said = []
    watch = tcp_counters.Watch(said.append)
    monkeypatch.setattr(tcp_counters, "PATH", tmp_path / "absent")
    host = LocalHost("java")
    assert watch.read(host) is None and watch.read(host) is None
    assert len(said) == 1 and said[0].startswith("local: no TCP counters")
    assert not watch.read_any
    (tmp_path / "netstat").write_text(NETSTAT)
    monkeypatch.setattr(tcp_counters, "PATH", tmp_path / "netstat")
    assert watch.read_all([host, host]) == [tcp_counters.pick(NETSTAT)] * 2
    assert watch.read_any and len(said) == 1


@pytest.mark.slow
def test_a_real_sweep_records_the_counters_of_each_trial(tmp_path, jar):
    if not Path("/proc/net/netstat").exists():
        pytest.skip("no /proc/net/netstat here (not Linux)")
    out = tmp_path / "smoke.jsonl"
    done = run_script("run_benchmarks.py", "--preset", "smoke", "--out", str(out), timeout=300)
    assert done.returncode == 0, done.stderr
    trials = [json.loads(line) for line in out.read_text().splitlines() if line.startswith("[")]
    assert len(trials) == 4
    for _, result in trials:
        tcp = result["tcp"]
        assert set(tcp) == {"listen_overflows", "listen_drops", "syn_retrans"}
        assert all(isinstance(v, int) and v >= 0 for v in tcp.values())
        assert tcp["listen_drops"] >= tcp["listen_overflows"]  # every overflow is a drop
    summary = done.stdout.strip().splitlines()[-1]
    assert re.fullmatch(
        r"4 trials ran; (none saw the listen queue overflow|\d saw the listen queue overflow "
        r"\(a SYN retried after [\d s or]+, chapter 1\) and (is|are) kept)(; .*)?; "
        r"\d stalled for no reason we could see.*\.",
        summary,
    ), summary
    # the analysis shows what the listen queue did, and draws it
    analysed = run_script("analyze.py", str(out), "--figures", str(tmp_path / "figures"))
    assert analysed.returncode == 0, analysed.stderr
    assert (
        "### The listen queue (chapter 1)" in analysed.stdout
        or "No trial's host saw the listen queue overflow (chapter 1)." in analysed.stdout
    )
    assert (tmp_path / "figures" / "listen-queue.png").is_file()
