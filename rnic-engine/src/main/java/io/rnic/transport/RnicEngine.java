package io.rnic.transport;

import io.rnic.cc.DcqcnParameters;
import io.rnic.cc.QpCongestion;
import io.rnic.icrc.Icrc;
import io.rnic.status.CounterTypes;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.MemoryRegion;
import io.rnic.verbs.MemoryRegionTable;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpAttributes;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.VerbsException;
import io.rnic.wire.DropReason;
import io.rnic.wire.Ecn;
import io.rnic.wire.InboundCounters;
import io.rnic.wire.InboundValidator;
import io.rnic.wire.Ipv4Flyweight;
import io.rnic.wire.Ipv6Flyweight;
import io.rnic.wire.Opcode;
import io.rnic.wire.RocePacket;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.ManyToOneConcurrentLinkedQueue;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.status.CountersManager;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * The RNIC's transport engine: one instance per engine thread, owning its QPs. Frames come in through
 * {@link #onFrame} (validated, routed to the responder or the completer); {@link #doWork} runs the duty cycle:
 * read the clock once, apply control commands, run the timers that are due, then visit the QPs that have work: run
 * their requesters, send the responses they owe, flush those in error.
 * <p>
 * A cycle costs what the QPs with work cost, however many QPs are idle: a QP is visited while it is in the engine's
 * active list. It joins the list when an application thread posts to it (the {@link Doorbell}), when a frame, a
 * timer or a control command gives it something to do, and leaves it when a visit finds nothing more (nothing
 * posted but unsent, no response owed, nothing to flush). A QP that has more than its per-cycle budget stays.
 * Control operations ({@link #modifyQp}) run on the engine thread: inline when called from it or when no thread
 * drives the engine (tests, simulation), otherwise as a command the caller waits for.
 */
public final class RnicEngine
{
    /** {@link #execute}'s default limit: a stuck or failing engine thread gives an error, not a hang. */
    public static final long COMMAND_TIMEOUT_NS_DEFAULT = 30_000_000_000L;
    /** Packets one QP may send per duty cycle, so that one busy QP does not starve the others. */
    public static final int SEND_BUDGET_PER_QP = 64;

    private final LocalPort port;
    private final MemoryRegionTable regions;
    private final NanoClock clock;
    private final CountersManager countersManager;
    private final TransportCounters counters;
    private final InboundValidator validator;
    private final RocePacket packet = new RocePacket();
    private final Ipv4Flyweight ipv4 = new Ipv4Flyweight();
    private final Ipv6Flyweight ipv6 = new Ipv6Flyweight();
    private final QpTable qps = new QpTable();
    private final Doorbell doorbell = new Doorbell();
    /** The QPs the duty cycle visits, in the order they became active; the first {@link #activeCount}. */
    private QpContext[] activeQps = new QpContext[64];
    private int activeCount;
    /** QP visits by the duty cycle since the engine started: what idle QPs would cost if they were visited. */
    long qpsVisited;
    private final TransmitPath tx;
    private final Completions completions;
    private final Requester requester;
    private final Completer completer;
    private final Responder responder;
    private final CnpSender cnpSender;
    private final QpModifier modifier;
    /** Congestion control of QPs created from now on: DCQCN with these parameters, or off when null. */
    private volatile DcqcnParameters congestionDefaults;
    private final ManyToOneConcurrentLinkedQueue<Runnable> commands = new ManyToOneConcurrentLinkedQueue<>();
    /**
     * Control commands one duty cycle runs at most, as Aeron's conductor drains a bounded number: a burst of control
     * calls (a client creating thousands of QPs) leaves the packets of the other QPs a cycle between every few.
     */
    public static final int COMMANDS_PER_CYCLE = 16;
    /** 1.024 µs ticks, 4096 spokes: a 4.2 ms revolution (the shortest RC timeout is 8 µs, the longest 2.4 hours). */
    private final QpTimerWheel timers;
    /**
     * How long a backlog in the receive ring may hold the timers back: far longer than draining a ring takes (a few
     * thousand frames at a burst per microsecond-cycle), far shorter than any ACK timeout worth having (perftest's 67
     * ms, the IBTA's shortest useful values are milliseconds on a software peer).
     */
    public static final long TIMER_HOLD_MAX_NS = 1_000_000;

    private final QpTimerWheel.Expiry onTimerExpiry = this::onTimerExpiry;
    private final int shard;
    private final int shards;
    private boolean callerFlushesAcknowledges;
    private volatile Thread engineThread;
    /** {@link #awaitDeregistered}'s default limit: a NIC completes a transmission in microseconds. */
    public static final long PAYLOAD_RELEASE_TIMEOUT_NS_DEFAULT = 5_000_000_000L;
    /** Between two asks whether the port released them: a duty cycle or so, without spinning a core. */
    private static final long PAYLOAD_RELEASE_POLL_NS = 20_000;
    /** What the first look answers when the port holds nothing attached before the fence (fences are >= 0). */
    private static final long NOTHING_HELD = -1;
    private volatile long payloadReleaseTimeoutNs = PAYLOAD_RELEASE_TIMEOUT_NS_DEFAULT;
    /** How long {@link #execute} waits for the engine thread to run a command: far beyond any command's own time. */
    private volatile long commandTimeoutNs = COMMAND_TIMEOUT_NS_DEFAULT;
    private long nowNs;
    private boolean receiveReported;
    private boolean receiveDrained;
    private long receivedAllBeforeNs;
    private boolean backlogged;
    private long backlogSinceNs;

    public RnicEngine(final LocalPort port, final MemoryRegionTable regions, final PacketSink sink, final NanoClock clock)
    {
        this(port, regions, sink, clock, 0, 1, CounterTypes.newManager(CounterTypes.ENGINE_CAPACITY));
    }

    /**
     * An engine that is shard {@code shard} of {@code shards}: it owns the QPs whose number is {@code shard} modulo
     * {@code shards}. It counts into {@code countersManager}: an endpoint's, which holds all of its counters, or one
     * of its own ({@link CounterTypes#newManager}).
     */
    public RnicEngine(
        final LocalPort port,
        final MemoryRegionTable regions,
        final PacketSink sink,
        final NanoClock clock,
        final int shard,
        final int shards,
        final CountersManager countersManager)
    {
        if (shards < 1 || shard < 0 || shard >= shards)
        {
            throw new IllegalArgumentException("shard " + shard + " of " + shards);
        }
        this.shard = shard;
        this.shards = shards;
        this.countersManager = countersManager;
        this.counters = new TransportCounters(countersManager, shard);
        this.validator = new InboundValidator(Icrc.defaultCalculator(), new InboundCounters(countersManager, shard));
        this.port = port;
        this.regions = regions;
        this.clock = clock;
        this.tx = new TransmitPath(sink, counters);
        final LocalMemory memory = new LocalMemory(regions);
        this.completions = new Completions(counters);
        this.requester = new Requester(tx, memory, completions, counters, port, clock);
        this.completer = new Completer(requester, memory, completions, counters, clock);
        this.responder = new Responder(tx, memory, completions, counters);
        this.cnpSender = new CnpSender(tx, port, counters);
        this.modifier = new QpModifier(port, completions);
        this.nowNs = clock.nanoTime();
        this.timers = new QpTimerWheel(nowNs, 1024, 4096);
        regions.addReader(this::awaitDeregistered);
    }

    /**
     * Returns once this engine has applied the deregistration of {@code region} (already gone from the table): a
     * command it runs between two packets, so no copy that found the region is still running, and every later
     * packet looks its key up again and misses. The engine keeps R_Keys and L_Keys across packets and duty cycles,
     * never a region or an address it found through one, so there is nothing else to invalidate: a WRITE in progress
     * into the region is refused at its next packet (remote access error), so is a READ whose responses wait for
     * room, a retransmission gathering from it fails with a local protection error.
     * <p>
     * A port that sends payload from where it lies ({@link PayloadAttachingSink}) may still hold frames that read
     * the region after that: a NIC until its DMA completes. So the command also takes a fence in what the port holds,
     * and the call returns once the port has released everything attached before it, or fails in one line after
     * {@link #payloadReleaseTimeoutNs} (the memory must then stay allocated): never a hang.
     */
    private void awaitDeregistered(final MemoryRegion region)
    {
        // one command when the port holds nothing attached (the common case): the fence and the first look together
        final long fence = execute(() ->
        {
            final long mark = tx.payloadFence();
            return tx.payloadReleased(mark) ? NOTHING_HELD : mark;
        });
        if (fence == NOTHING_HELD)
        {
            return;
        }
        final long startNs = System.nanoTime();
        while (!execute(() -> tx.payloadReleased(fence)))
        {
            if (System.nanoTime() - startNs > payloadReleaseTimeoutNs)
            {
                throw new VerbsException("deregistering " + region + ": the port still sends from its memory " +
                    java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(payloadReleaseTimeoutNs) + " ms later (its " +
                    "driver has not released the frames): the region is gone, but its memory must stay allocated");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(PAYLOAD_RELEASE_POLL_NS);
        }
    }

    /** How long a deregistration waits for the port to release frames that send from the region's memory. */
    public void payloadReleaseTimeoutNs(final long timeoutNs)
    {
        this.payloadReleaseTimeoutNs = timeoutNs;
    }

    public LocalPort port()
    {
        return port;
    }

    public int shard()
    {
        return shard;
    }

    public int shards()
    {
        return shards;
    }

    /** Allocates a QPN this engine owns. Control path (see {@link #execute}). */
    public int allocateQpn()
    {
        return qps.allocateQpn(shard, shards);
    }

    public TransportCounters counters()
    {
        return counters;
    }

    /** The manager this engine's counters live in (and a connection manager's on it). */
    public CountersManager countersManager()
    {
        return countersManager;
    }

    public InboundValidator validator()
    {
        return validator;
    }

    public QpTable qps()
    {
        return qps;
    }

    public MemoryRegionTable regions()
    {
        return regions;
    }

    public void sink(final PacketSink sink)
    {
        tx.sink(sink);
    }

    /** Who learns the source of QP1's datagrams ({@link GsiSourceListener}); before the engine thread starts. */
    public void gsiSourceListener(final GsiSourceListener listener)
    {
        responder.gsiSourceListener(listener);
    }

    /** {@link #execute}'s limit, for tests of an engine thread that never runs its commands. */
    void commandTimeoutNs(final long timeoutNs)
    {
        this.commandTimeoutNs = timeoutNs;
    }

    /** Control commands queued and not run yet (a snapshot). */
    int commandsQueued()
    {
        return commands.size();
    }

    /**
     * Declares the thread that runs {@link #doWork}; control calls from other threads then queue commands. The
     * thread declares null when it stops driving the engine (after its last duty cycle): commands queued meanwhile
     * run then, so that no caller waits for an engine that no longer runs (a deregistration racing a shutdown).
     */
    public void engineThread(final Thread thread)
    {
        this.engineThread = thread;
        if (thread == null)
        {
            runOrphanedCommands();
        }
    }

    /**
     * Runs the commands nobody drives the engine for any more: by the thread that stopped, and by a caller that
     * queued one as it stopped (each side sees the other: the queue and {@link #engineThread} are volatile).
     */
    private void runOrphanedCommands()
    {
        synchronized (commands)
        {
            Runnable command;
            while ((command = commands.poll()) != null)
            {
                command.run();
            }
        }
    }

    /**
     * One duty cycle: clock, commands (at most {@link #COMMANDS_PER_CYCLE}), due timers, then the QPs with work.
     * Returns the work done.
     */
    public int doWork()
    {
        final long previousCycleNs = nowNs;
        nowNs = clock.nanoTime();
        int work = 0;
        Runnable command;
        while (work < COMMANDS_PER_CYCLE && (command = commands.poll()) != null)
        {
            command.run();
            work++;
        }
        work += timers.poll(timersNowNs(previousCycleNs), onTimerExpiry);
        answerDoorbell(); // not work in itself: what the rung QPs get done is
        final QpContext[] visited = activeQps;
        final int count = activeCount;
        int kept = 0;
        for (int i = 0; i < count; i++)
        {
            final QpContext qp = visited[i];
            if (!qp.removed)
            {
                work += serve(qp);
            }
            if (!qp.removed && hasWork(qp))
            {
                visited[kept++] = qp;
            }
            else
            {
                qp.active = false;
            }
        }
        qpsVisited += count;
        for (int i = kept; i < count; i++) // serving a QP activates none (frames, timers, commands do)
        {
            visited[i] = null;
        }
        activeCount = kept;
        // the ACKs of the receive burst before this cycle, after the requests: a reply the application posted on
        // seeing the data leaves first (the ACK only frees the peer's send queue; nobody waits on it)
        if (!callerFlushesAcknowledges)
        {
            work += responder.flushAcknowledges();
        }
        // what this cycle transmitted reaches the wire before the next receive burst (the driver flushes the port)
        responder.endDutyCycle();
        return work;
    }

    /** The clock's time at the start of the last duty cycle (engine thread). */
    public long nowNs()
    {
        return nowNs;
    }

    /**
     * Tells the engine, before {@link #doWork}, whether the driver's receive burst of this cycle emptied the port's
     * ring (returned fewer frames than it asked for). A driver that never calls it gets timers at the clock's time.
     * <p>
     * A software RNIC's thread can be descheduled for longer than an ACK timeout (a loaded 2-core machine: tens of
     * milliseconds). The answers that arrived meanwhile wait in the ring, more of them than one burst takes; firing
     * the retransmission timers on waking would resend what the peer has already answered (a clean link that shows
     * retransmissions, a responder answering duplicates). So a timer expires only once the ring has been seen empty
     * after its deadline: a receive that drains the ring in this cycle has taken every frame that arrived before the
     * previous cycle's clock reading.
     */
    public void receiveDrained(final boolean drained)
    {
        if (!receiveReported)
        {
            receiveReported = true;
            receivedAllBeforeNs = nowNs;
        }
        receiveDrained = drained;
    }

    /**
     * The time the timers are polled at: the clock's, unless the driver reports its receives; then the last time
     * before which every arrived frame has been processed, held there while a backlog drains, but for no more than
     * {@link #TIMER_HOLD_MAX_NS} of the engine's own running time (a ring kept full by a peer must not stop the
     * retransmissions of every other QP).
     */
    private long timersNowNs(final long previousCycleNs)
    {
        if (!receiveReported)
        {
            return nowNs;
        }
        if (receiveDrained)
        {
            backlogged = false;
            receivedAllBeforeNs = previousCycleNs;
            return previousCycleNs;
        }
        if (!backlogged)
        {
            backlogged = true;
            backlogSinceNs = nowNs;
        }
        return nowNs - backlogSinceNs < TIMER_HOLD_MAX_NS ? receivedAllBeforeNs : nowNs - TIMER_HOLD_MAX_NS;
    }

    /** Adds the QPs whose doorbell rang to the active list. */
    private void answerDoorbell()
    {
        QpContext qp = doorbell.takeAll();
        while (qp != null)
        {
            final QpContext next = doorbell.answer(qp);
            if (!qp.removed)
            {
                activate(qp);
            }
            qp = next;
        }
    }

    /** One visit: flush a QP in error, or send what responses and requests its budget allows. */
    private int serve(final QpContext qp)
    {
        final QpState state = qp.state;
        if (state == QpState.ERR)
        {
            return completions.flush(qp);
        }
        int work = 0;
        if (!qp.responses.isEmpty())
        {
            work += responder.sendResponses(qp, nowNs, SEND_BUDGET_PER_QP);
        }
        if (state == QpState.RTS || state == QpState.SQD)
        {
            final int sent = requester.process(qp, nowNs, SEND_BUDGET_PER_QP);
            if (sent > 0 && qp.type == QpType.RC)
            {
                armTimer(qp);
            }
            work += sent;
        }
        return work;
    }

    /**
     * Whether the QP needs another visit without anything happening to it first: work requests posted that the
     * requester has not sent, responses owed, WRs to flush in ERR. A QP that waits for an ACK, an RNR
     * timer or a retransmission timeout does not: the frame or the timer makes it active again. The rings' producer
     * positions are volatile reads, after the doorbell's volatile clear (see {@link Doorbell}).
     */
    private static boolean hasWork(final QpContext qp)
    {
        final QpState state = qp.state;
        if (state == QpState.ERR)
        {
            return qp.sq.isPosted(qp.sqOldest) || (qp.rq != null && qp.rq.isPosted(qp.rqNext)) || qp.srqWqeHeld ||
                (qp.srq != null && !qp.lastWqeReachedRaised);
        }
        if (!qp.responses.isEmpty())
        {
            return true;
        }
        final boolean mayRequest = state == QpState.RTS || (state == QpState.SQD && qp.reqWqeStarted);
        return mayRequest && qp.rnrResumeNs == 0 && qp.sq.isPosted(qp.sqNext);
    }

    /** Puts the QP in the list the duty cycle visits, if it is not there yet. Engine thread. */
    private void activate(final QpContext qp)
    {
        if (qp.active)
        {
            return;
        }
        if (activeCount == activeQps.length)
        {
            activeQps = Arrays.copyOf(activeQps, activeCount * 2); // grows to the most ever active, once
        }
        activeQps[activeCount++] = qp;
        qp.active = true;
    }

    /** Activates the QP if something that just happened to it left it work. Engine thread. */
    private void activateIfWork(final QpContext qp)
    {
        if (!qp.active && !qp.removed && hasWork(qp))
        {
            activate(qp);
        }
    }

    /** QPs in the duty cycle's active list. Engine thread. */
    int activeQpCount()
    {
        return activeCount;
    }

    /**
     * Lets the driver of the engine send the receive burst's ACKs itself ({@link #flushAcknowledges}), after it has
     * pushed the cycle's requests to the wire: building and queueing the ACKs then no longer delays the data.
     */
    public void callerFlushesAcknowledges(final boolean callerFlushes)
    {
        this.callerFlushesAcknowledges = callerFlushes;
    }

    /** Sends the ACKs coalesced during the last receive burst; returns how many. Engine thread. */
    public int flushAcknowledges()
    {
        return responder.flushAcknowledges();
    }

    /** Keeps the QP's timer entry at its earliest deadline (retransmission or RNR resume). */
    private void armTimer(final QpContext qp)
    {
        final long retransmit = qp.retransmitDeadlineNs;
        final long rnr = qp.rnrResumeNs;
        final long earliest = retransmit == 0 ? rnr : rnr == 0 ? retransmit : Math.min(retransmit, rnr);
        if (earliest == 0)
        {
            timers.cancel(qp);
        }
        else if (!qp.inTimerWheel || earliest - qp.timerDeadlineNs < 0)
        {
            timers.schedule(qp, earliest);
        }
        // a later deadline than the entry's: the entry fires early, finds it not due and moves it (no work per ACK)
    }

    private void onTimerExpiry(final QpContext qp)
    {
        final QpState state = qp.state;
        if (qp.type != QpType.RC || (state != QpState.RTS && state != QpState.SQD) || qps.get(qp.qpn) != qp)
        {
            return; // the QP left RTS or was destroyed: its timers are void
        }
        completer.onTimers(qp, nowNs);
        armTimer(qp);
        activateIfWork(qp); // a retransmission, or the end of an RNR wait
        if (qp.inTimerWheel && qp.timerDeadlineNs - nowNs <= 0)
        {
            timers.schedule(qp, nowNs + 1024); // not moved by onTimers: look again next tick, not in a loop
        }
    }

    /** One received frame (the buffer is only read during the call). */
    public void onFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        if (validator.validate(buffer, offset, length, packet) != DropReason.NONE)
        {
            counters.increment(TransportCounter.DROPPED_INVALID_FRAME);
            return;
        }
        counters.increment(TransportCounter.PACKETS_RECEIVED);
        counters.add(TransportCounter.BYTES_RECEIVED, length);
        if (!isForUs(buffer))
        {
            counters.increment(TransportCounter.DROPPED_NOT_OUR_ADDRESS);
            return;
        }
        final int opcode = packet.opcode();
        final QpContext qp = qps.get(packet.destinationQp());
        if (opcode == Opcode.CNP)
        {
            if (qp != null && !isFromPeer(qp, buffer))
            {
                counters.increment(TransportCounter.DROPPED_ADDRESS_MISMATCH);
                return;
            }
            onCnp(qp);
            return;
        }
        if (qp == null)
        {
            counters.increment(TransportCounter.DROPPED_UNKNOWN_QP);
            return;
        }
        if (Opcode.transport(opcode) != qp.transport())
        {
            counters.increment(TransportCounter.DROPPED_WRONG_TRANSPORT);
            return;
        }
        if (!isFromPeer(qp, buffer))
        {
            counters.increment(TransportCounter.DROPPED_ADDRESS_MISMATCH);
            return;
        }
        if ((packet.partitionKey() & 0x7FFF) != 0x7FFF)
        {
            counters.increment(TransportCounter.DROPPED_PKEY);
            return;
        }
        if (packet.ecn() == Ecn.CE)
        {
            onCongestionExperienced(qp, buffer);
        }
        if (Opcode.has(opcode, Opcode.FLAG_REQUEST))
        {
            responder.onRequest(qp, packet, buffer, nowNs);
        }
        else
        {
            completer.onResponse(qp, packet, buffer, nowNs);
            armTimer(qp);
        }
        activateIfWork(qp); // responses owed, a window opened by an ACK, a NAK's go-back-N, an error to flush
    }

    /** Reaction point: the CNP's DestQP is our QP whose data met congestion. */
    private void onCnp(final QpContext qp)
    {
        final QpCongestion congestion = qp == null ? null : qp.congestion;
        if (congestion == null)
        {
            counters.increment(TransportCounter.CNP_IGNORED);
            return;
        }
        counters.increment(TransportCounter.CNP_RECEIVED);
        congestion.onCnp(nowNs);
    }

    /**
     * Notification point: a valid packet for {@code qp} was marked CE on its way; the QP that sent it gets a CNP, at
     * most one per interval per local QP. A connected QP answers its peer; a UD QP answers the datagram's source (its
     * addresses and the DETH's source QP), whoever that is.
     */
    private void onCongestionExperienced(final QpContext qp, final DirectBuffer buffer)
    {
        counters.increment(TransportCounter.ECN_MARKED_RECEIVED);
        final QpCongestion congestion = qp.congestion;
        if (congestion != null && congestion.onCeMarked(nowNs))
        {
            final QpState state = qp.state;
            if (qp.type == QpType.UD)
            {
                if (state == QpState.RTR || state == QpState.RTS || state == QpState.SQD)
                {
                    cnpSender.sendToSource(qp, packet, buffer);
                }
            }
            else if (state != QpState.RESET && state != QpState.INIT)
            {
                cnpSender.send(qp, packet.partitionKey());
            }
        }
    }

    private boolean isForUs(final DirectBuffer buffer)
    {
        if (packet.isIpv6())
        {
            ipv6.wrapAt(buffer, packet.ipOffset());
            return port.ownsIpv6(ipv6.destinationHigh(), ipv6.destinationLow());
        }
        ipv4.wrapAt(buffer, packet.ipOffset());
        return port.ownsIpv4(ipv4.destination());
    }

    /**
     * rxe's {@code check_addr}: a connected QP hears its peer only. Its frames (requests, responses, CNPs) must come
     * from the destination GID of its address vector and go to the source GID its own frames leave from, over the
     * same IP version; anyone else could otherwise write into its regions or complete its work requests. A UD QP is
     * not connected, and a QP before RTR has no peer yet (its state check drops the frame). Call after
     * {@link #isForUs}, which wrapped the IP header.
     */
    private boolean isFromPeer(final QpContext qp, final DirectBuffer buffer)
    {
        final QpState state = qp.state;
        if (qp.type == QpType.UD || state == QpState.RESET || state == QpState.INIT)
        {
            return true;
        }
        final AddressVector av = qp.addressVector;
        final int sourceGid = av.sourceGidIndex();
        if (packet.isIpv6())
        {
            return !av.isIpv4() &&
                ipv6.sourceHigh() == av.destinationGidHigh() && ipv6.sourceLow() == av.destinationGidLow() &&
                ipv6.destinationHigh() == port.gidHigh(sourceGid) && ipv6.destinationLow() == port.gidLow(sourceGid);
        }
        return av.isIpv4() &&
            ipv4.source() == av.destinationIpv4() && ipv4.destination() == (int)port.gidLow(sourceGid);
    }

    // ------------------------------------------------------------------------------------------------ control

    /** Runs {@code command} on the engine thread and returns its result (control path). */
    public <T> T execute(final Supplier<T> command)
    {
        final Thread owner = engineThread;
        if (owner == null || owner == Thread.currentThread())
        {
            return command.get();
        }
        final CompletableFuture<T> result = new CompletableFuture<>();
        commands.offer(() ->
        {
            try
            {
                result.complete(command.get());
            }
            catch (final RuntimeException ex)
            {
                result.completeExceptionally(ex);
            }
        });
        if (engineThread == null)
        {
            runOrphanedCommands(); // the engine thread stopped between our look and our command
        }
        try
        {
            return result.get(commandTimeoutNs, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
        catch (final java.util.concurrent.TimeoutException ex)
        {
            // a duty cycle that fails before it reaches the commands, every time, or a thread that hangs: never wait
            // for ever (the command stays queued and runs if the engine recovers)
            throw new VerbsException("the engine thread " + owner.getName() + " did not run the command within " +
                java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(commandTimeoutNs) + " ms: it is stuck or failing " +
                "(its errors are counted and logged)");
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new VerbsException("interrupted while waiting for the engine");
        }
        catch (final ExecutionException ex)
        {
            if (ex.getCause() instanceof RuntimeException runtime)
            {
                throw runtime;
            }
            throw new VerbsException(String.valueOf(ex.getCause()));
        }
    }

    /** Whether a QP with this number exists on this engine. */
    public boolean hasQp(final int qpn)
    {
        return qps.get(qpn) != null;
    }

    public void addQp(final QpContext qp)
    {
        final DcqcnParameters defaults = congestionDefaults;
        qp.congestion = defaults == null ? null : new QpCongestion(defaults, nowNs);
        qp.doorbell = doorbell;
        if (qp.type == QpType.UD)
        {
            // a UD QP has no path MTU attribute: its datagrams may be as large as the port carries (rxe's
            // mtu_cap), what its requester allows and its responder accepts
            qp.pathMtu = PathMtu.forEthernetMtu(port.ethernetMtu());
            qp.mtuBytes = qp.pathMtu.bytes();
        }
        qps.add(qp);
    }

    /**
     * Congestion control of the QPs created after this call: DCQCN with {@code parameters} (ECT(0) on their
     * packets, CNPs for CE-marked ones, the requester paced at the reaction point's rate), or off when null.
     */
    public void congestionControl(final DcqcnParameters parameters)
    {
        congestionDefaults = parameters;
    }

    public DcqcnParameters congestionControl()
    {
        return congestionDefaults;
    }

    /** Turns DCQCN on ({@code parameters}) or off (null) for one QP, starting again at line rate. Control path. */
    public void congestionControl(final QpContext qp, final DcqcnParameters parameters)
    {
        execute(() ->
        {
            qp.congestion = parameters == null ? null : new QpCongestion(parameters, nowNs);
            qp.frame.ecn(qp.ecn());
            return null;
        });
    }

    public void removeQp(final QpContext qp)
    {
        execute(() ->
        {
            qps.remove(qp);
            qp.removed = true; // the duty cycle drops it from its active list
            return null;
        });
    }

    /**
     * ibverbs {@code modify_qp}: checks the transition and attributes, then applies them on the engine thread.
     *
     * @throws VerbsException naming what is wrong; the QP is unchanged then.
     */
    public void modifyQp(final QpContext qp, final QpAttributes attributes, final int mask)
    {
        final String error = execute(() -> applyModify(qp, attributes, mask));
        if (error != null)
        {
            throw new VerbsException("modify QP " + qp.qpn + ": " + error);
        }
    }

    /** The modification, then a visit if it left the QP work. Engine thread. */
    private String applyModify(final QpContext qp, final QpAttributes attributes, final int mask)
    {
        // what the QP received and completed is acknowledged before the new state can silence it: the ACKs of a
        // receive burst wait for the end of the duty cycle, and a move to ERR in between (a DREQ's, on seeing the
        // last SEND) dropped the ACK of a message the application already had (the peer then retried to failure)
        responder.flushAcknowledge(qp);
        final String error = modifier.modify(qp, attributes, mask, nowNs);
        if (error == null)
        {
            activateIfWork(qp); // back to RTS from SQD with WRs waiting, or in ERR with WRs to flush
        }
        return error;
    }
}
