//! Seed 003 §4-3's readings of its handshake captures, checked on this
//! machine's: OpenSSL's 4096-byte write buffer (a small server flight
//! leaves in one write call when Finished is ready, a larger one in full
//! buffers first: counted on the server's write calls) and the server's
//! initial congestion window of 10 segments (a flight beyond it waits a
//! round trip for the client's ACK: wire times over an emulated link).

use crate::anchor;
use ango_core::{Finding, RecordKey, TlsRecord, Verdict};

const WRITE_BUFFER: f64 = 4096.0;
/// A round trip "well above the server's own time": this many times the
/// server's time from reading the ClientHello to writing its Finished.
const RTT_OVER_SERVER: f64 = 10.0;
/// Without the server's own time, a round trip this long (ns).
const LONG_RTT_NS: f64 = 10e6;

/// The server's own time for its flight (ClientHello read to Finished
/// written, in-process), ns.
fn server_time(r: &TlsRecord) -> Option<f64> {
    let k = "server_ch_read_to_finished_write";
    r.openssl_ns
        .get(k)
        .or_else(|| r.rustls_io_ns.get(k))
        .copied()
}

/// Linux's initial congestion window (RFC 6928), segments.
const DEFAULT_CWND: f64 = 10.0;

fn ms(ns: f64) -> String {
    format!("{:.3} ms", ns / 1e6)
}

fn label(r: &TlsRecord) -> String {
    format!("{} / {} / CA {}", r.group, r.server_sig, r.ca_sig)
}

/// The findings over the lab's records: OpenSSL's write buffer (on its
/// write calls) and the initial congestion window (on wire times).
pub fn findings(records: &[TlsRecord]) -> Vec<Finding> {
    if records.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    // OpenSSL's write buffer, judged on what it says: the server's write
    // calls for its flight.
    let claim = "with OpenSSL's 4096-byte write buffer, a server flight of at most 4096 B \
                 leaves in one write call, when Finished is ready; a larger one in two or \
                 more, the first a full buffer of 4096 B, the rest after a gap";
    let written: Vec<(&TlsRecord, f64, f64, f64)> = records
        .iter()
        .filter(|r| r.server_stack == "openssl" && r.two_host.is_none())
        .filter_map(|r| {
            Some((
                r,
                r.server_flight_bytes?,
                r.server_flight_writes?,
                r.server_first_write_bytes?,
            ))
        })
        .collect();
    let f = Finding::new("tls", "003", "§4-3", claim)
        .id("write-buffer", &[])
        .anchor(anchor::TLS_FLIGHTS)
        .from(written.iter().map(|(r, ..)| r.key()));
    let small: Vec<_> = written.iter().filter(|x| x.1 <= WRITE_BUFFER).collect();
    let large: Vec<_> = written.iter().filter(|x| x.1 > WRITE_BUFFER).collect();
    out.push(if small.is_empty() || large.is_empty() {
        f.explain(format!(
            "needs OpenSSL-server combinations whose write calls were seen on both sides of \
             4096 B; this run has {} at or under and {} over",
            small.len(),
            large.len()
        ))
    } else {
        let one = small.iter().filter(|x| x.2 == 1.0).count();
        let split = large
            .iter()
            .filter(|x| x.2 >= 2.0 && x.3 == WRITE_BUFFER)
            .count();
        let gaps: Vec<f64> = large
            .iter()
            .filter_map(|x| x.0.server_write_gap_ns)
            .collect();
        let gap = ango_harness::stats::Summary::of(&gaps).map(|s| s.stats().median);
        let share = 100.0 * (one + split) as f64 / (small.len() + large.len()) as f64;
        let odd: Vec<String> = small
            .iter()
            .filter(|x| x.2 != 1.0)
            .chain(
                large
                    .iter()
                    .filter(|x| !(x.2 >= 2.0 && x.3 == WRITE_BUFFER)),
            )
            .take(3)
            .map(|x| {
                format!(
                    "{} ({:.0} B in {:.0} writes, the first {:.0} B)",
                    label(x.0),
                    x.1,
                    x.2,
                    x.3
                )
            })
            .collect();
        f.value(share, "% of flights")
            .verdict(if share == 100.0 {
                Verdict::Holds
            } else {
                Verdict::DoesNotHold
            })
            .explain(format!(
                "the server's write calls before it read the client's Finished, median over \
                 each combination's handshakes: {one} of {} flights of at most 4096 B left in \
                 one write; {split} of {} larger ones in two or more whose first was 4096 B, \
                 the rest a median {} later{}",
                small.len(),
                large.len(),
                gap.map_or("–".into(), ms),
                if odd.is_empty() {
                    String::new()
                } else {
                    format!("; not so: {}", odd.join(", "))
                }
            ))
    });
    // The initial congestion window.
    let claim = "a server flight longer than the initial congestion window (10 segments) waits \
                 for the client's ACK: ServerHello sent to Finished sent takes at least half a \
                 round trip, while a flight within the window does not";
    let f = Finding::new("tls", "003", "§4-3", claim)
        .id("cwnd", &[])
        .anchor(anchor::TLS_CWND);
    let with_rtt: Vec<(&TlsRecord, f64, f64, f64)> = records
        .iter()
        .filter(|r| r.two_host.is_none())
        .filter_map(|r| {
            Some((
                r,
                r.server_flight_segments?,
                r.server_sh_send_to_finished_send_ns?,
                r.rtt_ns?,
            ))
        })
        .filter(|(r, _, _, rtt)| {
            *rtt >= RTT_OVER_SERVER * server_time(r).unwrap_or(LONG_RTT_NS / RTT_OVER_SERVER)
        })
        .collect();
    let cwnd = records
        .iter()
        .find_map(|r| r.tcp.server_initial_cwnd)
        .unwrap_or(DEFAULT_CWND);
    let within: Vec<_> = with_rtt.iter().filter(|x| x.1 <= cwnd).collect();
    let beyond: Vec<_> = with_rtt.iter().filter(|x| x.1 > cwnd).collect();
    let f = f.from(with_rtt.iter().map(|x| x.0.key()));
    out.push(if within.is_empty() || beyond.is_empty() {
        f.explain(format!(
            "needs combinations with wire times over an emulated link whose RTT is at least 10 \
             times the server's own time, on both sides of {cwnd:.0} segments; this run has {} \
             within and {} beyond",
            within.len(),
            beyond.len()
        ))
    } else {
        // Each flight's wait as a share of the round trip.
        let share = |x: &&(&TlsRecord, f64, f64, f64)| x.2 / x.3;
        let waited = beyond.iter().filter(|x| share(x) >= 0.5).count();
        let quick = within.iter().filter(|x| share(x) < 0.5).count();
        let least = beyond
            .iter()
            .min_by(|a, b| share(a).total_cmp(&share(b)))
            .expect("not empty");
        let most = within
            .iter()
            .max_by(|a, b| share(a).total_cmp(&share(b)))
            .expect("not empty");
        let holds = waited == beyond.len() && quick == within.len();
        f.value(share(least), "RTT")
            .verdict(if holds {
                Verdict::Holds
            } else {
                Verdict::DoesNotHold
            })
            .explain(format!(
                "initial window {cwnd:.0} segments (TCP_INFO); {waited} of {} flights beyond it \
                 waited at least half a round trip (the least: {:.2} RTT, {}, {:.0} segments); {} \
                 of {} within it did not (the most: {:.2} RTT, {}, {:.0} segments); RTT {}",
                beyond.len(),
                share(least),
                label(least.0),
                least.1,
                quick,
                within.len(),
                share(most),
                label(most.0),
                most.1,
                ms(least.3)
            ))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(sig: &str, bytes: f64, segs: f64, e_to_h_ns: f64, writes: (f64, f64)) -> TlsRecord {
        let mut r: TlsRecord = serde_json::from_value(serde_json::json!({
            "schema": 2, "run_id": "t", "suite": "tls", "group": "x25519", "server_sig": sig,
            "ca_sig": "p-256", "handshakes": 10, "failures": 0, "failure_examples": [],
            "handshake_ns": null, "phases_ns": {}, "client_sh_rcv_to_finished_send_ns": null,
            "server_sh_send_to_finished_send_ns": null,
            "openssl_ns": {"server_ch_read_to_finished_write": 50_000.0},
            "server_flight_bytes": null, "server_flight_segments": null,
            "client_flight_segments": null, "client_finished_segments": null,
            "tcp": {"server_mss": 1448.0, "client_mss": 1448.0, "server_initial_cwnd": 10.0,
                    "server_cwnd_after": 10.0, "retransmissions_c2s": 0, "retransmissions_s2c": 0,
                    "congestion_control": "cubic"},
            "capture": {"client_pcap": null, "server_pcap": null, "keylog": null,
                        "handshakes_in_pcap": 0, "client_packets": 0, "server_packets": 0,
                        "kernel_drops": 0, "handshakes_timed": 10, "problems": []},
            "cert_chain_bytes": 0, "server_cert_bytes": 0, "ca_cert_bytes": 0,
            "rtt_ns": 1.0e6, "rtt_asked_ns": 1.0e6, "rtt_base_ns": null, "link_delay_ns": null,
            "link": "tun-relay", "server_bad_attempts": 0, "cut_short": false,
            "method": "m", "time": "t"
        }))
        .unwrap();
        r.server_flight_bytes = Some(bytes);
        r.server_flight_writes = Some(writes.0);
        r.server_first_write_bytes = Some(writes.1);
        r.server_write_gap_ns = (writes.0 > 1.0).then_some(250_000.0);
        r.server_flight_segments = Some(segs);
        r.server_sh_send_to_finished_send_ns = Some(e_to_h_ns);
        r
    }

    #[test]
    fn the_seeds_two_thresholds_hold_on_a_run_shaped_like_the_seeds() {
        let rs = vec![
            rec("p-256", 1800.0, 2.0, 3_000.0, (1.0, 1800.0)),
            rec("ml-dsa-44", 5400.0, 4.0, 300_000.0, (2.0, 4096.0)),
            rec("ml-dsa-87", 12_000.0, 9.0, 300_000.0, (3.0, 4096.0)),
            rec("cross", 20_000.0, 15.0, 1_400_000.0, (5.0, 4096.0)),
        ];
        let f = findings(&rs);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].verdict, Verdict::Holds, "{f:?}");
        assert_eq!(f[0].value, Some(100.0));
        assert!(
            f[0].explanation.contains("a median 0.250 ms later"),
            "{f:?}"
        );
        assert_eq!(f[1].verdict, Verdict::Holds, "{f:?}");
        assert!((f[1].value.unwrap() - 1.4).abs() < 1e-9);
        assert_eq!(f[0].sources.len(), 4);
        assert_eq!(f[0].id, "003-write-buffer");
    }

    #[test]
    fn a_small_flight_in_two_writes_does_not_hold_and_missing_data_is_not_measurable() {
        let rs = vec![
            rec("p-256", 1800.0, 2.0, 90_000.0, (2.0, 900.0)),
            rec("ml-dsa-44", 5400.0, 4.0, 300_000.0, (2.0, 4096.0)),
        ];
        let f = findings(&rs);
        assert_eq!(f[0].verdict, Verdict::DoesNotHold);
        assert_eq!(f[0].value, Some(50.0));
        assert!(
            f[0].explanation.contains("not so: x25519 / p-256"),
            "{}",
            f[0].explanation
        );
        // No flight beyond 10 segments: not measurable, with the reason.
        assert_eq!(f[1].verdict, Verdict::NotMeasurable);
        assert!(
            f[1].explanation.contains("0 beyond"),
            "{}",
            f[1].explanation
        );
    }

    #[test]
    fn a_round_trip_not_well_above_the_servers_own_time_is_left_out() {
        let mut slow = rec("cross", 20_000.0, 15.0, 400_000.0, (5.0, 4096.0));
        // The server took 0.2 ms of the 1 ms round trip: its own time, not
        // the window, may explain the wait.
        slow.openssl_ns
            .insert("server_ch_read_to_finished_write".into(), 200_000.0);
        let rs = vec![rec("p-256", 1800.0, 2.0, 3_000.0, (1.0, 1800.0)), slow];
        let f = findings(&rs);
        assert_eq!(f[1].verdict, Verdict::NotMeasurable);
        assert!(
            f[1].explanation.contains("0 beyond"),
            "{}",
            f[1].explanation
        );
    }
}
