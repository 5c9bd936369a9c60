//! The client side of a two-host lab (`ango tls --connect`): it checks the server's clock offset, asks for each combination, and joins both sides' views into one record.

use super::*;

/// Where `ango tls --connect` goes.
#[derive(Clone, Debug)]
pub struct ConnectSpec {
    pub addr: SocketAddrV4,
    pub secret: Secret,
}

struct Client {
    ch: Channel,
}

impl Client {
    fn request(&mut self, m: &Msg) -> Result<Msg> {
        self.ch.send(m)?;
        match self.ch.recv()? {
            Msg::Error { message } => Err(Error::Backend {
                backend: "tls-server",
                message,
            }),
            other => Ok(other),
        }
    }

    fn clock(&mut self, n: usize) -> Result<ClockEstimate> {
        let mut samples = Vec::with_capacity(n);
        for _ in 0..n {
            let t1 = probe::realtime_ns();
            let reply = self.request(&Msg::Clock { t1 })?;
            let t4 = probe::realtime_ns();
            match reply {
                Msg::ClockReply { t1: echo, t2, t3 } if echo == t1 => {
                    samples.push(ClockSample::of(t1, t2, t3, t4));
                }
                other => return Err(unexpected("a clock reply", &other)),
            }
        }
        ClockEstimate::best_of(&samples).ok_or_else(|| peer_err("no clock samples".into()))
    }
}

fn unexpected(wanted: &str, got: &Msg) -> Error {
    peer_err(format!("the server sent {got:?} instead of {wanted}"))
}

/// Runs the matrix of `spec` against a `tls-server`; like
/// [`crate::run::run`], `emit` gets each combination the moment it is done.
pub fn run_connect(
    spec: &TlsSpec,
    to: &ConnectSpec,
    stop: &(dyn Fn() -> bool + Sync),
    emit: &mut dyn FnMut(TlsRecord, Vec<Option<f64>>, Vec<Timeline>) -> Result<()>,
    note: &mut dyn FnMut(String),
) -> Result<bool> {
    let addr = SocketAddr::V4(to.addr);
    let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(10)).map_err(|e| {
        Error::io(
            format!("connecting to the tls-server at {addr} (is `ango tls-server` running there?)"),
            e,
        )
    })?;
    stream
        .set_nodelay(true)
        .map_err(|e| Error::io("control socket", e))?;
    keepalive(&stream);
    let local_ip = match stream.local_addr() {
        Ok(SocketAddr::V4(a)) => *a.ip(),
        _ => Ipv4Addr::UNSPECIFIED,
    };
    let mut client = Client {
        ch: Channel::connect(stream, &to.secret)?,
    };
    let (server_host, server_run_id, tls_port, server_captured) = match client.ch.recv()? {
        Msg::Welcome {
            server_host,
            run_id,
            tls_port,
            captured,
            capture_note,
        } => {
            if let Some(n) = capture_note {
                note(format!(
                    "{n}: its points and phases are missing from the timelines (run it as \
                     root for both views)"
                ));
            }
            (server_host, run_id, tls_port, captured)
        }
        other => return Err(unexpected("its welcome", &other)),
    };
    let server_v4 = SocketAddrV4::new(*to.addr.ip(), tls_port);
    let capture = if !spec.capture {
        None
    } else if !crate::lab::is_root() {
        note(
            "this client does not run as root, so it does not capture packets: no wire times, \
              phases or flight sizes (handshake times and in-process times only)"
                .into(),
        );
        None
    } else {
        Some(capture_port(local_ip, tls_port).map_err(|e| Error::io("starting the capture", e))?)
    };
    if let Some(d) = &spec.capture_dir {
        std::fs::create_dir_all(d.join(run::CAPTURE_DIR))
            .map_err(|e| Error::io("creating the capture directory", e))?;
    }
    let keys = KeyLines::default();
    let mut keylog = tls13::KeyLog::new();
    let cross: Vec<String> = timeline::cross_host_phases()
        .into_iter()
        .map(String::from)
        .collect();
    for &ca_alg in &spec.ca_sigs {
        for &srv_alg in &spec.server_sigs {
            for &server_stack in &spec.server_stacks {
                for &client_stack in &spec.client_stacks {
                    for &group in &spec.groups {
                        let combo = Combo {
                            group,
                            srv: srv_alg,
                            ca: ca_alg,
                            client: client_stack,
                            server: server_stack,
                        };
                        if let Some(why) =
                            run::unsupported(client_stack, server_stack, group, srv_alg, ca_alg)
                        {
                            note(run::skip_note(combo, &why));
                            continue;
                        }
                        if stop() {
                            let _ = client.ch.send(&Msg::Bye);
                            return Ok(true);
                        }
                        let ready = client.request(&Msg::Prepare {
                            group: group.name().into(),
                            server_sig: srv_alg.name().into(),
                            ca_sig: ca_alg.name().into(),
                            server_stack: server_stack.name().into(),
                            client_stack: Some(client_stack.name().into()),
                        })?;
                        let Msg::Ready {
                            ca_cert_der,
                            server_cert_bytes,
                            ca_cert_bytes,
                            server_library_version,
                        } = ready
                        else {
                            return Err(unexpected("ready", &ready));
                        };
                        let ca = hex::decode(&ca_cert_der)
                            .map_err(|_| peer_err("the server's CA certificate".into()))?;
                        let pq = crate::pqsig::PqChain::needed(ca_alg, srv_alg);
                        let cctx =
                            crate::handshake::client_tls(client_stack, group, &ca, pq, &keys)?;
                        let before = client.clock(CLOCK_SAMPLES)?;
                        if let Some(c) = &capture {
                            c.take().map_err(|e| Error::io("reading the capture", e))?;
                        }
                        let obs = run::handshakes(
                            &cctx,
                            SocketAddr::V4(server_v4),
                            spec.handshakes,
                            stop,
                        );
                        let client_batch = match &capture {
                            Some(c) => {
                                Some(c.take().map_err(|e| Error::io("reading the capture", e))?)
                            }
                            None => None,
                        };
                        run::absorb_keys(&keys, &mut keylog, spec.capture_dir.as_deref())?;
                        let report = client.request(&Msg::Finish {
                            connections: obs.len(),
                        })?;
                        let Msg::Report {
                            observations,
                            packets,
                            kernel_drops,
                            bad_attempts,
                        } = report
                        else {
                            return Err(unexpected("its report", &report));
                        };
                        let after = client.clock(CLOCK_SAMPLES)?;
                        let clock = ClockEstimate::around(&before, &after);
                        let offset = clock.offset_ns.round() as i64;
                        // The server's times on this client's clock.
                        let back = |t: u64| shifted(t, -offset);
                        let mut server_seen = observations;
                        for o in &mut server_seen {
                            o.accepted_ns = back(o.accepted_ns);
                            for e in &mut o.events {
                                e.t_ns = back(e.t_ns);
                            }
                        }
                        let mut server_packets = decode_packets(&packets).map_err(peer_err)?;
                        for p in &mut server_packets {
                            p.t_ns = back(p.t_ns);
                        }
                        let batches = client_batch.map(|c| {
                            (
                                c,
                                Some(CaptureBatch {
                                    packets: server_packets,
                                    kernel_drops,
                                }),
                            )
                        });
                        let measured = Measured {
                            obs,
                            server_seen,
                            batches,
                            server_v4,
                            server_bad_attempts: bad_attempts,
                            server_library_version,
                            server_clock_shift_ns: offset,
                        };
                        let rtt = Summary::of(&clock.delays_ns).map(|s| s.median);
                        let setting = Setting {
                            rtt_ns: rtt,
                            rtt_asked_ns: 0.0,
                            rtt_base_ns: None,
                            link_delay_ns: None,
                            link: "two-host".into(),
                            server_cert_bytes,
                            ca_cert_bytes,
                            two_host: Some(TlsTwoHost {
                                server: to.addr.to_string(),
                                server_host: server_host.clone(),
                                server_run_id: server_run_id.clone(),
                                server_captured,
                                clock_offset_ns: clock.offset_ns,
                                clock_offset_uncertainty_ns: clock.uncertainty_ns,
                                clock_rtt_ns: clock.best_delay_ns,
                                clock_samples: clock.delays_ns.len() as u64,
                                cross_host_phases: cross.clone(),
                            }),
                        };
                        let (rec, times, timelines) =
                            run::analyse(spec, combo, measured, &keylog, &setting)?;
                        emit(rec, times, timelines)?;
                    }
                }
            }
        }
    }
    client.ch.send(&Msg::Bye)?;
    Ok(stop())
}
