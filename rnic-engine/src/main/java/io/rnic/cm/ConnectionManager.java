package io.rnic.cm;

import io.rnic.device.QueuePair;
import io.rnic.device.RnicDevice;
import io.rnic.status.CounterBlock;
import io.rnic.status.CounterTypes;
import io.rnic.transport.LocalPort;
import io.rnic.verbs.AddressVector;
import io.rnic.verbs.PathMtu;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The communication manager (IBTA chapter 12) over the GSI QP, as the RDMA CM uses it on RoCEv2: REQ / REP / RTU to
 * connect an RC QP, DREQ / DREP to disconnect, REJ to refuse; service IDs of the RDMA_PS_TCP port space and the RDMA
 * CM's IP header in the REQ's private data. Control path: one thread calls {@link #poll(long)} (receives MADs,
 * answers them, retransmits unanswered ones after the peer's CM response timeout) and the other methods: on an
 * endpoint, the engine thread, through a {@link CmAgent} in its duty cycle; in a test, the test's. The MAD channel
 * ({@link GsiChannel}), the QP transitions ({@link CmQpTransitions}), the response timers ({@link CmRetransmitter})
 * and the connections held ({@link CmConnectionTable}) are apart; this class is the state machine and the timewait's
 * rules. A MAD that is malformed or unexpected is counted ({@link CmCounter}) and dropped, never answered with an
 * exception.
 * <p>
 * <b>MRA and REJ.</b> A REQ our application has not accepted yet when the peer sends it again (its response timeout
 * passed) is answered with an MRA asking for {@link #mraServiceTimeout(int)} more, as Linux's RDMA CM does; an MRA
 * for our REQ or REP holds back its retry for the MRA's service timeout. A REJ's reason (IBTA's, Linux's
 * {@code IB_CM_REJ_*}) and private data reach the application as librdmacm's {@code RDMA_CM_EVENT_REJECTED} carries
 * them; a REQ of ours given up is rejected with reason timeout, and a REQ from a peer QP whose connection is in our
 * timewait with reason stale connection.
 * <p>
 * <b>Timewait.</b> A connection that closes (DREQ / DREP on either side, REJ, a timeout, {@link #release}) enters the
 * timewait of IBTA 12.9.8 and librdmacm: the manager keeps it, so that a late or duplicate MAD of the old connection
 * finds it (a DREQ is answered with our DREP again, anything else dropped as unexpected in its state), and its QP
 * stays in the error state, so that its QPN is not handed out again and a stray packet of the old connection is
 * dropped by the transport ({@code qp_state_drops}), never delivered to a new one. When the timewait is over, the
 * manager forgets the connection and, if the application {@linkplain #release released} it, destroys its QP; a
 * DREQ that arrives later still gets its DREP (as Linux's CM answers one for an unknown connection), so a peer whose
 * DREP was lost never waits for its retries to run out. The timewait lasts the connection's local ACK timeout,
 * 4.096 µs × 2^{@code localAckTimeout}: IBTA sizes that timeout as twice the packet lifetime plus the responder's
 * ACK delay, the longest a packet of the old connection can still be on its way, and Linux's CM waits the same
 * ({@code cm_enter_timewait}: the address vector's timeout). {@link #timewaitNs(long)} or the system property
 * {@value #TIMEWAIT_NS_PROP_NAME} sets a fixed one. Every lookup (by communication ID, by the peer's) is a hash
 * lookup and the duty cycle visits only the connections that await a reply or a timewait end, so the cost of a
 * connection does not grow with the number the manager has served.
 */
public final class ConnectionManager implements AutoCloseable
{
    /** The GSI's Q_Key (IBTA 13.4.6.1). */
    public static final int GSI_QKEY = GsiChannel.GSI_QKEY;
    /** Our CM response timeout, 4.096 µs × 2^20 ≈ 4.3 s, as the Linux RDMA CM's CMA_CM_RESPONSE_TIMEOUT. */
    public static final int CM_RESPONSE_TIMEOUT_DEFAULT = 20;
    public static final int MAX_CM_RETRIES_DEFAULT = 15;
    /**
     * The service timeout of the MRA we send for a REQ the application has not accepted yet: 4.096 µs × 2^24 ≈ 69 s,
     * the Linux RDMA CM's {@code CMA_CM_MRA_SETTING}.
     */
    public static final int MRA_SERVICE_TIMEOUT_DEFAULT = 24;
    /** The RC QP's local ACK timeout we ask for (4.096 µs × 2^14 ≈ 67 ms, perftest's). */
    public static final int LOCAL_ACK_TIMEOUT_DEFAULT = 14;
    /** A fixed timewait in nanoseconds for every connection, instead of the one derived from its ACK timeout. */
    public static final String TIMEWAIT_NS_PROP_NAME = "rnic.cm.timewait.ns";
    /** The timewait of each connection is its local ACK timeout (see the class comment). */
    public static final long TIMEWAIT_NS_DERIVED = -1;

    private static final int GRH_BYTES = GsiChannel.GRH_BYTES;
    private static final byte[] NO_PRIVATE_DATA = new byte[0];

    /** Where a peer's MAC comes from (ARP / neighbour discovery, or a static table): by the peer's GID. */
    @FunctionalInterface
    public interface MacResolver
    {
        long resolve(long gidHigh, long gidLow);
    }

    private final LocalPort localPort;
    private final int gidIndex;
    private final MacResolver resolver;
    private final long caGuid;
    private final GsiChannel gsi;
    private final UnsafeBuffer buffer;
    private final CmQpTransitions qps;
    private final CmRetransmitter retransmitter;
    private final GsiChannel.MadHandler onMad = this::onMad;
    private final CmRetransmitter.GiveUp onRetriesExhausted = this::onRetriesExhausted;
    private final CmMadFlyweight mad = new CmMadFlyweight();
    private final CmReqFlyweight req = new CmReqFlyweight();
    private final CmRepFlyweight rep = new CmRepFlyweight();
    private final CmDreqFlyweight dreq = new CmDreqFlyweight();
    private final CmRejFlyweight rej = new CmRejFlyweight();
    private final CmMraFlyweight mra = new CmMraFlyweight();
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[CmMadFlyweight.LENGTH]);
    /** In the device's counters manager, one per {@link CmCounter}: readable from any thread. */
    private final CounterBlock counters;
    private final CmConnectionTable connections;
    private final ArrayDeque<CmConnection> pendingRequests = new ArrayDeque<>();
    /** The peer of a MAD answered without a connection (a DREQ after the timewait). */
    private final AddressVector replyAddress = new AddressVector();
    private final Set<Integer> listening = new HashSet<>();
    private final SplittableRandom random;
    private int cmResponseTimeout = CM_RESPONSE_TIMEOUT_DEFAULT;
    private int maxCmRetries = MAX_CM_RETRIES_DEFAULT;
    private int mraServiceTimeout = MRA_SERVICE_TIMEOUT_DEFAULT;
    private int typeOfService;
    private long timewaitNs = Long.getLong(TIMEWAIT_NS_PROP_NAME, TIMEWAIT_NS_DERIVED);

    /**
     * Creates the device's GSI QP and posts its receives.
     *
     * @param gidIndex the GID (and so the IP address) we connect from; a REQ to another of our GIDs is answered
     *                 from that one.
     */
    public ConnectionManager(final RnicDevice device, final LocalPort localPort, final int gidIndex,
        final MacResolver resolver, final long seed)
    {
        this.localPort = localPort;
        this.gidIndex = gidIndex;
        this.resolver = resolver;
        this.random = new SplittableRandom(seed);
        this.connections = new CmConnectionTable(random);
        this.caGuid = eui64(localPort.mac());
        this.counters = new CounterBlock(device.engine().countersManager(), CounterTypes.CONNECTION_MANAGER, 0, "cm: ",
            CmCounter.descriptions());
        this.gsi = new GsiChannel(device, localPort, this::count);
        this.buffer = gsi.buffer();
        this.qps = new CmQpTransitions(device);
        this.retransmitter = new CmRetransmitter(gsi, this::count);
    }

    /** The CM response timeout we announce (4.096 µs × 2^value) and the retries we allow; for tests and tuning. */
    public ConnectionManager timeouts(final int cmResponseTimeout, final int maxCmRetries)
    {
        this.cmResponseTimeout = cmResponseTimeout;
        this.maxCmRetries = maxCmRetries;
        return this;
    }

    /**
     * The service timeout (4.096 µs × 2^value, 0..31) of the MRA we answer a REQ with when the peer sends it again
     * before our application accepted or rejected it: how much longer the peer should wait.
     */
    public ConnectionManager mraServiceTimeout(final int mraServiceTimeout)
    {
        if (mraServiceTimeout < 0 || mraServiceTimeout > 31)
        {
            throw new IllegalArgumentException("MRA service timeout " + mraServiceTimeout + " out of range 0..31");
        }
        this.mraServiceTimeout = mraServiceTimeout;
        return this;
    }

    /**
     * librdmacm's {@code rdma_set_option(RDMA_OPTION_ID_TOS)} for the connections this manager makes from now on:
     * the traffic class of the REQ's primary path and of the QP's address vector (its upper six bits are the DSCP of
     * every packet). The passive side takes it from the REQ, as Linux's CM does.
     */
    public ConnectionManager typeOfService(final int typeOfService)
    {
        if (typeOfService < 0 || typeOfService > 255)
        {
            throw new IllegalArgumentException("type of service " + typeOfService + " out of range 0..255");
        }
        this.typeOfService = typeOfService;
        return this;
    }

    /**
     * A fixed timewait for the connections that close from now on, or {@link #TIMEWAIT_NS_DERIVED} for each
     * connection's local ACK timeout (the default; see the class comment). Shorter than the packet lifetime, a stray
     * packet of an old connection may meet a new QP with the same QPN.
     */
    public ConnectionManager timewaitNs(final long timewaitNs)
    {
        this.timewaitNs = timewaitNs;
        return this;
    }

    /** How many connections the manager holds: pending, connecting, established, closing or in their timewait. */
    public int connectionCount()
    {
        return connections.size();
    }

    /** How many of them are closed and wait for the end of their timewait. */
    public int timewaitCount()
    {
        return connections.timewaitCount();
    }

    /** Accept REQs for this RDMA_PS_TCP port. */
    public void listen(final int port)
    {
        listening.add(port);
    }

    /** Stops accepting REQs for this port: the next ones are rejected (invalid service ID), as nobody listens. */
    public void stopListening(final int port)
    {
        listening.remove(port);
    }

    /** The next REQ to a port we listen on, waiting for {@link #accept} or {@link #reject}; null if none. */
    public CmConnection pollConnectRequest()
    {
        return pendingRequests.poll();
    }

    public long counter(final CmCounter counter)
    {
        return counters.get(counter.ordinal());
    }

    /** The counters that are not zero. Control path (allocates). */
    public Map<CmCounter, Long> counters()
    {
        final Map<CmCounter, Long> nonZero = new EnumMap<>(CmCounter.class);
        for (final CmCounter counter : CmCounter.values())
        {
            final long value = counters.get(counter.ordinal());
            if (value != 0)
            {
                nonZero.put(counter, value);
            }
        }
        return nonZero;
    }

    private void count(final CmCounter counter)
    {
        counters.increment(counter.ordinal());
    }

    // ------------------------------------------------------------------------------------------------ active side

    /**
     * Sends a REQ for an RC QP (in RESET or INIT) to a peer's GID and RDMA_PS_TCP port. The connection is
     * established by {@link #poll} when the REP arrives (the QP is then in RTS and the RTU sent).
     */
    public CmConnection connect(final QueuePair qp, final long peerGidHigh, final long peerGidLow, final int port,
        final int responderResources, final int initiatorDepth, final long nowNs)
    {
        return connect(qp, peerGidHigh, peerGidLow, port, responderResources, initiatorDepth, NO_PRIVATE_DATA, nowNs);
    }

    /**
     * {@link #connect(QueuePair, long, long, int, int, int, long)} with the consumer's private data in the REQ, after
     * the RDMA CM header: at most {@link CmReqFlyweight#CONSUMER_PRIVATE_DATA_LENGTH} bytes, as librdmacm allows.
     */
    public CmConnection connect(final QueuePair qp, final long peerGidHigh, final long peerGidLow, final int port,
        final int responderResources, final int initiatorDepth, final byte[] privateData, final long nowNs)
    {
        return connect(qp, gidIndex, peerGidHigh, peerGidLow, port, responderResources, initiatorDepth, privateData,
            nowNs);
    }

    /**
     * {@link #connect(QueuePair, long, long, int, int, int, byte[], long)} from the GID at {@code sgidIndex} rather than
     * the manager's: a driver's manager serves clients that each connect from the address they choose.
     */
    public CmConnection connect(final QueuePair qp, final int sgidIndex, final long peerGidHigh,
        final long peerGidLow, final int port, final int responderResources, final int initiatorDepth,
        final byte[] privateData, final long nowNs)
    {
        return connect(qp, sgidIndex, peerGidHigh, peerGidLow, port, responderResources, initiatorDepth, privateData,
            typeOfService, nowNs);
    }

    /**
     * {@link #connect(QueuePair, int, long, long, int, int, int, byte[], long)} with this connection's own type of
     * service rather than the manager's ({@link #typeOfService(int)}): a driver's manager connects for clients that
     * each set their own.
     */
    public CmConnection connect(final QueuePair qp, final int sgidIndex, final long peerGidHigh,
        final long peerGidLow, final int port, final int responderResources, final int initiatorDepth,
        final byte[] privateData, final int typeOfService, final long nowNs)
    {
        if (typeOfService < 0 || typeOfService > 255)
        {
            throw new IllegalArgumentException("type of service " + typeOfService + " out of range 0..255");
        }
        if (sgidIndex < 0 || sgidIndex >= localPort.gidCount())
        {
            throw new IllegalArgumentException("GID index " + sgidIndex + " out of range 0.." +
                (localPort.gidCount() - 1));
        }
        final int gidIndex = sgidIndex;
        checkPrivateData(privateData, CmReqFlyweight.CONSUMER_PRIVATE_DATA_LENGTH, "REQ");
        final CmConnection c = new CmConnection(connections.newCommId(), CmState.REQ_SENT);
        c.qp = qp;
        c.transactionId = random.nextLong() & 0x0000_0000_FFFF_FFFFL | 0x0000_0002_0000_0000L;
        c.peerGidHigh = peerGidHigh;
        c.peerGidLow = peerGidLow;
        c.servicePort = port;
        c.peerPort = port;
        c.localPsn = random.nextInt(1 << 24);
        c.pathMtu = PathMtu.forEthernetMtu(localPort.ethernetMtu());
        c.responderResources = responderResources;
        c.initiatorDepth = initiatorDepth;
        c.localAckTimeout = LOCAL_ACK_TIMEOUT_DEFAULT;
        c.retryCount = 7;
        c.rnrRetryCount = 7;
        c.peerResponseTimeout = cmResponseTimeout;
        c.maxRetries = maxCmRetries;
        addressPeer(c, gidIndex);
        c.peer.trafficClass(typeOfService);
        final int sourcePort = 0xC000 | random.nextInt(0x3FFF);
        final boolean ipv4 = isIpv4(peerGidHigh, peerGidLow);
        req.wrapAt(scratch, 0).initialise(CmMadFlyweight.ATTR_REQ, c.transactionId).localCommId(c.localCommId);
        req.serviceId(CmReqFlyweight.tcpServiceId(port)).localCaGuid(caGuid).localQpn(qp.qpn())
            .responderResources(responderResources).initiatorDepth(initiatorDepth)
            .remoteCmResponseTimeout(cmResponseTimeout).startingPsn(c.localPsn)
            .localCmResponseTimeout(cmResponseTimeout).retryCount(c.retryCount).partitionKey(0xFFFF)
            .pathMtu(c.pathMtu.value()).rnrRetryCount(c.rnrRetryCount).maxCmRetries(maxCmRetries)
            .primaryLids(0xFFFF, 0xFFFF)
            .primaryLocalGid(localPort.gidHigh(gidIndex), localPort.gidLow(gidIndex))
            .primaryRemoteGid(peerGidHigh, peerGidLow)
            .primaryFlowLabelAndRate(0, 0).primaryTrafficClassAndHopLimit(typeOfService, 64)
            .primaryLocalAckTimeout(c.localAckTimeout);
        if (ipv4)
        {
            req.cmaHeaderIpv4(sourcePort, (int)localPort.gidLow(gidIndex), (int)peerGidLow);
        }
        else
        {
            req.cmaHeaderIpv6(sourcePort, localPort.gidHigh(gidIndex), localPort.gidLow(gidIndex), peerGidHigh,
                peerGidLow);
        }
        req.consumerPrivateData(privateData);
        connections.add(c);
        sendAndAwait(c, nowNs);
        return c;
    }

    // ------------------------------------------------------------------------------------------------ passive side

    /**
     * Accepts a REQ from {@link #pollConnectRequest}: brings the RC QP to RTS with the REQ's parameters and sends
     * the REP; the connection is established when the RTU arrives.
     */
    public void accept(final CmConnection c, final QueuePair qp, final int responderResources,
        final int initiatorDepth, final long nowNs)
    {
        accept(c, qp, responderResources, initiatorDepth, NO_PRIVATE_DATA, nowNs);
    }

    /**
     * {@link #accept(CmConnection, QueuePair, int, int, long)} with the consumer's private data in the REP: at most
     * {@link CmRepFlyweight#PRIVATE_DATA_LENGTH} bytes.
     */
    public void accept(final CmConnection c, final QueuePair qp, final int responderResources,
        final int initiatorDepth, final byte[] privateData, final long nowNs)
    {
        checkPrivateData(privateData, CmRepFlyweight.PRIVATE_DATA_LENGTH, "REP");
        if (c.state() != CmState.REQ_RCVD)
        {
            throw new IllegalStateException("accept in state " + c.state());
        }
        c.qp = qp;
        c.localPsn = random.nextInt(1 << 24);
        // what we grant: no more READs in flight toward us than we take, none more from us than the peer takes
        final int grantedResponder = Math.min(responderResources, c.initiatorDepthRequested());
        final int grantedInitiator = Math.min(initiatorDepth, c.responderResourcesRequested());
        c.responderResources = grantedResponder;
        c.initiatorDepth = grantedInitiator;
        connectQp(c, grantedInitiator, grantedResponder);
        rep.wrapAt(scratch, 0).initialise(CmMadFlyweight.ATTR_REP, c.transactionId).localCommId(c.localCommId)
            .remoteCommId(c.remoteCommId);
        rep.localQpn(qp.qpn()).startingPsn(c.localPsn).responderResources(grantedResponder)
            .initiatorDepth(grantedInitiator).targetAckDelay(15).rnrRetryCount(7).localCaGuid(caGuid)
            .privateData(privateData);
        c.state(CmState.REP_SENT);
        sendAndAwait(c, nowNs);
    }

    /** Refuses a REQ with a consumer reject; the connection goes to its timewait. */
    public void reject(final CmConnection c, final long nowNs)
    {
        reject(c, NO_PRIVATE_DATA, nowNs);
    }

    /**
     * {@link #reject(CmConnection, long)} with the consumer's private data in the REJ ({@code rdma_reject}'s): at most
     * {@link CmRejFlyweight#PRIVATE_DATA_LENGTH} bytes, which the peer's application gets with the reason.
     */
    public void reject(final CmConnection c, final byte[] privateData, final long nowNs)
    {
        checkPrivateData(privateData, CmRejFlyweight.PRIVATE_DATA_LENGTH, "REJ");
        if (c.state() != CmState.REQ_RCVD)
        {
            throw new IllegalStateException("reject in state " + c.state());
        }
        rej.wrapAt(scratch, 0).initialise(CmMadFlyweight.ATTR_REJ, c.transactionId).localCommId(c.localCommId)
            .remoteCommId(c.remoteCommId);
        rej.messageRejected(CmRejFlyweight.MESSAGE_REQ).reason(CmRejFlyweight.REASON_CONSUMER)
            .privateData(privateData);
        count(CmCounter.REJECTS_SENT);
        sendMad(c.peer, scratch);
        c.rejectReason(CmRejFlyweight.REASON_CONSUMER);
        c.state(CmState.REJECTED);
        enterTimewait(c, nowNs);
    }

    // ------------------------------------------------------------------------------------------------ both sides

    /** Sends a DREQ; the QP goes to the error state. Done when the DREP arrives (or after the retries). */
    public void disconnect(final CmConnection c, final long nowNs)
    {
        if (c.state() != CmState.ESTABLISHED && c.state() != CmState.REP_SENT)
        {
            return;
        }
        toError(c);
        c.transactionId = random.nextLong() & 0x0000_0000_FFFF_FFFFL | 0x0000_0002_0000_0000L;
        dreq.wrapAt(scratch, 0).initialise(CmMadFlyweight.ATTR_DREQ, c.transactionId).localCommId(c.localCommId)
            .remoteCommId(c.remoteCommId);
        dreq.remoteQpn(c.remoteQpn);
        c.state(CmState.DREQ_SENT);
        sendAndAwait(c, nowNs);
    }

    /**
     * The application is done with a connection and hands its QP over ({@code rdma_destroy_qp} and
     * {@code rdma_destroy_id} in one): a connection still up is disconnected (DREQ), a REQ not yet accepted is
     * rejected, a REQ of ours still unanswered is given up (the QP to the error state, the connection
     * {@link CmState#TIMED_OUT}). The manager destroys the QP when the connection's timewait ends, never earlier: until
     * then its QPN stays taken and a stray packet for it is dropped. Destroying the QP directly instead frees the QPN
     * at once, for the next QP created to take. Idempotent.
     */
    public void release(final CmConnection c, final long nowNs)
    {
        if (c.released)
        {
            return;
        }
        c.released = true;
        switch (c.state())
        {
            case REQ_RCVD ->
            {
                pendingRequests.remove(c);
                reject(c, nowNs);
            }
            case REQ_SENT ->
            {
                stopAwaiting(c);
                c.state(CmState.TIMED_OUT);
                toError(c);
                rejectTimedOut(c);
                enterTimewait(c, nowNs);
            }
            case REP_SENT, ESTABLISHED -> disconnect(c, nowNs);
            default ->
            {
                // DREQ_SENT: its timewait begins with the DREP or the last retry; closed: in its timewait, or past it
            }
        }
        if (c.forgotten)
        {
            destroyQp(c);
        }
    }

    /**
     * {@link #release} for a QP the manager must not destroy: its owner (a driver's client) destroys it when it likes,
     * as {@code rdma_destroy_qp}. The connection ends as {@code release} ends it, then lets go of the QP at once, so
     * that nothing the connection does later (a DREQ's retries running out, a peer's late DREQ) touches a QP that may
     * be gone. Unlike a released connection's, the QP may then be gone before the timewait ends (a stray packet of the
     * old connection finds no QP rather than one in the error state: dropped either way), but its QPN is not: the
     * manager holds the number in the engine's QP table until the connection is forgotten, so that no new QP gets it
     * during the timewait. Idempotent.
     */
    public void detach(final CmConnection c, final long nowNs)
    {
        release(c, nowNs);
        if (!c.forgotten)
        {
            qps.holdQpn(c);
        }
        c.qp = null;
    }

    /**
     * What an application's release does, embedded or through a driver ({@link CmService#release}: librdmacm's
     * {@code rdma_destroy_qp} then {@code rdma_destroy_id}): the connection ends as {@link #release} ends it and its QP
     * is destroyed now, as a driver's client destroys its own; the QPN stays held in the engine's table until the
     * connection is forgotten at the end of its timewait, so that no new QP is numbered like it before then. A stray
     * packet of the old connection finds no QP and is dropped. Idempotent.
     */
    public void releaseAndDestroyQp(final CmConnection c, final long nowNs)
    {
        release(c, nowNs);
        if (!c.forgotten)
        {
            qps.holdQpn(c);
        }
        qps.destroy(c);
    }

    /**
     * The duty cycle: drains the GSI's completions, handles each MAD, retransmits what timed out, forgets the
     * connections whose timewait is over. Returns how many things it did.
     */
    public int poll(final long nowNs)
    {
        final int work = gsi.poll(nowNs, onMad) + retransmitter.poll(nowNs, onRetriesExhausted);
        return work + endTimewaits(nowNs);
    }

    /** The last retry of a REQ, REP or DREQ went unanswered: the connection ends (IBTA 12.9.6). */
    private void onRetriesExhausted(final CmConnection c, final long nowNs)
    {
        if (c.state() == CmState.DREQ_SENT)
        {
            c.state(CmState.DISCONNECTED); // IBTA 12.9.6: DREQ unanswered, time wait anyway
        }
        else
        {
            final boolean requested = c.state() == CmState.REQ_SENT;
            c.state(CmState.TIMED_OUT);
            toError(c);
            if (requested)
            {
                rejectTimedOut(c); // a peer that took the REQ (its MRA or REP lost) lets go of it
            }
        }
        enterTimewait(c, nowNs);
    }

    /** Forgets the connections whose timewait is over; destroys the QPs the application released. */
    private int endTimewaits(final long nowNs)
    {
        int work = 0;
        CmConnection c;
        while ((c = connections.pollTimewaitEnded(nowNs)) != null)
        {
            if (c.released)
            {
                destroyQp(c);
            }
            qps.releaseQpn(c);
            count(CmCounter.TIMEWAITS_ENDED);
            work++;
        }
        return work;
    }

    private void onMad(final int offset, final boolean ipv6, final long nowNs)
    {
        mad.wrapAt(buffer, offset + GRH_BYTES);
        count(CmCounter.MADS_RECEIVED);
        if (!mad.isCmSend())
        {
            count(CmCounter.DROPPED_NOT_CM);
            return;
        }
        switch (mad.attributeId())
        {
            case CmMadFlyweight.ATTR_REQ -> onReq(offset, ipv6, nowNs);
            case CmMadFlyweight.ATTR_REP -> onRep(offset, nowNs);
            case CmMadFlyweight.ATTR_RTU -> onRtu();
            case CmMadFlyweight.ATTR_DREQ -> onDreq(offset, ipv6, nowNs);
            case CmMadFlyweight.ATTR_DREP -> onDrep(nowNs);
            case CmMadFlyweight.ATTR_REJ -> onRej(offset, nowNs);
            case CmMadFlyweight.ATTR_MRA -> onMra(offset, nowNs);
            default -> count(CmCounter.DROPPED_UNSUPPORTED);
        }
    }

    private void onReq(final int offset, final boolean ipv6, final long nowNs)
    {
        req.wrapAt(buffer, offset + GRH_BYTES);
        final int remoteCommId = req.localCommId();
        final long remoteGuid = req.localCaGuid();
        final CmConnection known = connections.getByRemote(remoteCommId, remoteGuid);
        if (known != null)
        {
            onDuplicateReq(known);
            return;
        }
        final int ipVersion = req.cmaIpVersion();
        if (req.cmaVersion() != 0 || (ipVersion != 4 && ipVersion != 6) || (ipVersion == 6) != ipv6)
        {
            count(CmCounter.DROPPED_BAD_PRIVATE_DATA);
            return;
        }
        final CmConnection c = new CmConnection(connections.newCommId(), CmState.REQ_RCVD);
        c.remoteCommId = remoteCommId;
        c.remoteCaGuid = remoteGuid;
        c.transactionId = req.transactionId();
        c.remoteQpn = req.localQpn();
        c.remotePsn = req.startingPsn();
        c.servicePort = CmReqFlyweight.tcpPortOf(req.serviceId());
        c.peerPort = req.cmaSourcePort();
        c.requested(req.responderResources(), req.initiatorDepth());
        c.peerPrivateData = req.consumerPrivateData();
        c.localAckTimeout = req.primaryLocalAckTimeout();
        c.retryCount = req.retryCount();
        c.rnrRetryCount = req.rnrRetryCount();
        c.peerResponseTimeout = req.localCmResponseTimeout();
        c.maxRetries = req.maxCmRetries();
        final PathMtu ours = PathMtu.forEthernetMtu(localPort.ethernetMtu());
        final int code = req.pathMtu();
        c.pathMtu = code >= 1 && code < ours.value() ? PathMtu.values()[code - 1] : ours;
        // the peer's address: the source of the datagram (the GRH area), which is its primary GID on RoCEv2
        final int localGid = readSource(offset, ipv6);
        c.peerGidHigh = gsi.sourceGidHigh();
        c.peerGidLow = gsi.sourceGidLow();
        try
        {
            addressPeer(c, localGid < 0 ? gidIndex : localGid);
        }
        catch (final RuntimeException ex)
        {
            count(CmCounter.DROPPED_UNRESOLVED); // nobody answers ARP / ND for the requester: it will retry
            return;
        }
        if (req.transportServiceType() != 0 || c.servicePort < 0 || !listening.contains(c.servicePort))
        {
            sendReject(c.transactionId, c.remoteCommId, c.localCommId, CmRejFlyweight.REASON_INVALID_SERVICE_ID, c);
            return;
        }
        if (connections.getTimewaitByRemoteQpn(c.remoteQpn, remoteGuid) != null)
        {
            // the peer's QP still has a connection in our timewait: a packet of the old one may yet arrive
            count(CmCounter.STALE_REJECTED);
            sendReject(c.transactionId, c.remoteCommId, c.localCommId, CmRejFlyweight.REASON_STALE_CONNECTION, c);
            return;
        }
        c.peer.hopLimit(req.primaryHopLimit() == 0 ? 64 : req.primaryHopLimit())
            .trafficClass(req.primaryTrafficClass());
        connections.add(c);
        connections.indexRemote(c);
        pendingRequests.add(c);
    }

    /**
     * A REQ for a connection we hold, as Linux's CM answers one ({@code cm_dup_req_handler}): our REP again if it was
     * lost; an MRA if our application has not accepted yet, as the RDMA CM's {@code CMA_CM_MRA_SETTING} makes
     * the kernel send one (the peer's response timeout passed: without it the peer would give the REQ up); a REJ
     * "stale connection" if the connection is over and in its timewait.
     */
    private void onDuplicateReq(final CmConnection c)
    {
        switch (c.state())
        {
            case REP_SENT ->
            {
                count(CmCounter.DUPLICATES_ANSWERED);
                transmit(c); // our REP was lost
            }
            case REQ_RCVD ->
            {
                if (!c.mraSent)
                {
                    mra.wrapAt(scratch, 0).initialise(CmMadFlyweight.ATTR_MRA, c.transactionId)
                        .localCommId(c.localCommId).remoteCommId(c.remoteCommId);
                    mra.messageMraed(CmMraFlyweight.MESSAGE_REQ).serviceTimeout(mraServiceTimeout);
                    scratch.getBytes(0, c.lastSent);
                    c.mraSent = true;
                }
                count(CmCounter.MRAS_SENT);
                transmit(c); // the MRA, again if the first was lost
            }
            default ->
            {
                if (c.inTimewait)
                {
                    count(CmCounter.STALE_REJECTED);
                    sendReject(req.transactionId(), c.remoteCommId, c.localCommId,
                        CmRejFlyweight.REASON_STALE_CONNECTION, c);
                }
                else
                {
                    count(CmCounter.DROPPED_BAD_STATE);
                }
            }
        }
    }

    /**
     * The peer needs longer to answer our REQ or REP (IBTA 12.6.6): the MAD is not sent again, nor given up, before
     * the MRA's service timeout and the packet lifetime (our ACK timeout, as the timewait) passed, as Linux's
     * {@code cm_mra_handler} stretches it.
     */
    private void onMra(final int offset, final long nowNs)
    {
        mra.wrapAt(buffer, offset + GRH_BYTES);
        final CmConnection c = connections.get(mra.remoteCommId());
        if (c == null)
        {
            count(CmCounter.DROPPED_UNKNOWN_CONNECTION);
            return;
        }
        final int message = mra.messageMraed();
        if (!(message == CmMraFlyweight.MESSAGE_REQ && c.state() == CmState.REQ_SENT) &&
            !(message == CmMraFlyweight.MESSAGE_REP && c.state() == CmState.REP_SENT &&
            c.remoteCommId == mra.localCommId()))
        {
            count(CmCounter.DROPPED_BAD_STATE);
            return;
        }
        count(CmCounter.MRAS_RECEIVED);
        retransmitter.extend(c, nowNs + timeoutNs(mra.serviceTimeout()) + timeoutNs(c.localAckTimeout));
    }

    private void onRep(final int offset, final long nowNs)
    {
        rep.wrapAt(buffer, offset + GRH_BYTES);
        final CmConnection c = connections.get(rep.remoteCommId());
        if (c == null)
        {
            count(CmCounter.DROPPED_UNKNOWN_CONNECTION);
            return;
        }
        if (c.state() == CmState.ESTABLISHED && c.remoteCommId == rep.localCommId())
        {
            count(CmCounter.DUPLICATES_ANSWERED);
            transmit(c); // our RTU was lost: it is the last MAD we sent
            return;
        }
        if (c.state() != CmState.REQ_SENT)
        {
            count(CmCounter.DROPPED_BAD_STATE);
            return;
        }
        stopAwaiting(c);
        c.remoteCommId = rep.localCommId();
        c.remoteCaGuid = rep.localCaGuid();
        connections.indexRemote(c);
        c.remoteQpn = rep.localQpn();
        c.remotePsn = rep.startingPsn();
        c.rnrRetryCount = rep.rnrRetryCount();
        c.peerPrivateData = rep.privateData();
        // the peer's responder resources are our READs in flight; its initiator depth, its READs toward us
        final int maxReadAtomic = Math.max(1, Math.min(c.initiatorDepth, rep.responderResources()));
        final int maxDestReadAtomic = Math.max(1, c.responderResources);
        connectQp(c, maxReadAtomic, maxDestReadAtomic);
        mad.wrapAt(scratch, 0).initialise(CmMadFlyweight.ATTR_RTU, c.transactionId).localCommId(c.localCommId)
            .remoteCommId(c.remoteCommId);
        scratch.getBytes(0, c.lastSent);
        c.state(CmState.ESTABLISHED);
        transmit(c);
    }

    private void onRtu()
    {
        final CmConnection c = connections.get(mad.remoteCommId());
        if (c == null)
        {
            count(CmCounter.DROPPED_UNKNOWN_CONNECTION);
            return;
        }
        if (c.state() != CmState.REP_SENT || c.remoteCommId != mad.localCommId())
        {
            count(CmCounter.DROPPED_BAD_STATE);
            return;
        }
        stopAwaiting(c);
        c.state(CmState.ESTABLISHED);
    }

    private void onDreq(final int offset, final boolean ipv6, final long nowNs)
    {
        dreq.wrapAt(buffer, offset + GRH_BYTES);
        final CmConnection c = connections.get(dreq.remoteCommId());
        if (c == null)
        {
            answerForgottenDreq(offset, ipv6);
            return;
        }
        if (c.remoteCommId != dreq.localCommId())
        {
            count(CmCounter.DROPPED_UNKNOWN_CONNECTION);
            return;
        }
        switch (c.state())
        {
            case ESTABLISHED, REP_SENT, DREQ_SENT ->
            {
                c.state(CmState.DISCONNECTED); // first: see toError
                toError(c);
                stopAwaiting(c);
                c.transactionId = dreq.transactionId();
                mad.wrapAt(scratch, 0).initialise(CmMadFlyweight.ATTR_DREP, c.transactionId)
                    .localCommId(c.localCommId).remoteCommId(c.remoteCommId);
                scratch.getBytes(0, c.lastSent);
                enterTimewait(c, nowNs);
                transmit(c);
            }
            case DISCONNECTED ->
            {
                count(CmCounter.DUPLICATES_ANSWERED); // our DREP was lost: answer again
                mad.wrapAt(scratch, 0).initialise(CmMadFlyweight.ATTR_DREP, dreq.transactionId())
                    .localCommId(c.localCommId).remoteCommId(c.remoteCommId);
                sendMad(c.peer, scratch);
            }
            default -> count(CmCounter.DROPPED_BAD_STATE);
        }
    }

    /**
     * A DREQ for a connection we do not hold (its timewait is over; or it was never ours): answered with a DREP
     * to the datagram's source, as Linux's CM does ({@code cm_issue_drep}), so that a peer whose DREP was lost
     * stops retrying. The DREP carries nothing of ours but the IDs the DREQ named.
     */
    private void answerForgottenDreq(final int offset, final boolean ipv6)
    {
        final int localGid = readSource(offset, ipv6);
        try
        {
            addressPeer(replyAddress, gsi.sourceGidHigh(), gsi.sourceGidLow(), localGid < 0 ? gidIndex : localGid);
        }
        catch (final RuntimeException ex)
        {
            count(CmCounter.DROPPED_UNRESOLVED);
            return;
        }
        count(CmCounter.DREQS_ANSWERED_UNKNOWN);
        mad.wrapAt(scratch, 0).initialise(CmMadFlyweight.ATTR_DREP, dreq.transactionId())
            .localCommId(dreq.remoteCommId()).remoteCommId(dreq.localCommId());
        sendMad(replyAddress, scratch);
    }

    private void onDrep(final long nowNs)
    {
        final CmConnection c = connections.get(mad.remoteCommId());
        if (c == null)
        {
            count(CmCounter.DROPPED_UNKNOWN_CONNECTION);
            return;
        }
        if (c.state() != CmState.DREQ_SENT)
        {
            count(CmCounter.DROPPED_BAD_STATE);
            return;
        }
        stopAwaiting(c);
        c.state(CmState.DISCONNECTED);
        enterTimewait(c, nowNs);
    }

    /**
     * The peer refuses our REQ or REP, or gives up its REQ we have not accepted yet: the reason and the private data
     * go to the application ({@code RDMA_CM_EVENT_REJECTED}'s status and private data). A REQ given up (reason
     * timeout) may never have heard from us, so it names itself by its comm ID and, as the additional information,
     * its CA GUID, as Linux's {@code cm_acquire_rejected_id} finds it.
     */
    private void onRej(final int offset, final long nowNs)
    {
        rej.wrapAt(buffer, offset + GRH_BYTES);
        CmConnection c = connections.get(rej.remoteCommId());
        if (c == null && rej.reason() == CmRejFlyweight.REASON_TIMEOUT)
        {
            c = connections.getByRemote(rej.localCommId(), rej.rejectInfoGuid());
        }
        if (c == null)
        {
            count(CmCounter.DROPPED_UNKNOWN_CONNECTION);
            return;
        }
        final CmState state = c.state();
        if (state != CmState.REQ_SENT && state != CmState.REP_SENT && state != CmState.REQ_RCVD)
        {
            count(CmCounter.DROPPED_BAD_STATE);
            return;
        }
        count(CmCounter.REJECTS_RECEIVED);
        stopAwaiting(c);
        if (state == CmState.REQ_RCVD)
        {
            pendingRequests.remove(c);
        }
        c.peerPrivateData = rej.privateData();
        c.rejectReason(rej.reason());
        c.state(CmState.REJECTED);
        if (c.qp != null)
        {
            toError(c);
        }
        enterTimewait(c, nowNs);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /**
     * RESET → INIT for an RC QP, with remote READ, WRITE and atomics allowed, as {@code rdma_create_qp} leaves it:
     * receives may be posted before {@link #accept} or {@link #connect}.
     */
    public static void toInit(final QueuePair qp)
    {
        CmQpTransitions.toInit(qp);
    }

    private void connectQp(final CmConnection c, final int maxReadAtomic, final int maxDestReadAtomic)
    {
        qps.toRts(c, maxReadAtomic, maxDestReadAtomic);
        c.qpConnected = true;
    }

    /**
     * The QP of a connection that just closed to the error state. Its state is set first: the WRs the error state
     * flushes complete on another thread (the application's, with the CM on the engine thread), which must find the
     * connection closed when it sees them, as rping does when the peer's DREQ overtakes the ACK of its last SEND.
     */
    private void toError(final CmConnection c)
    {
        qps.toError(c);
    }

    private void addressPeer(final CmConnection c, final int sourceGidIndex)
    {
        addressPeer(c.peer, c.peerGidHigh, c.peerGidLow, sourceGidIndex);
    }

    private void addressPeer(final AddressVector peer, final long peerGidHigh, final long peerGidLow,
        final int sourceGidIndex)
    {
        if (isIpv4(peerGidHigh, peerGidLow))
        {
            peer.destinationIpv4((int)peerGidLow);
        }
        else
        {
            peer.destinationGid(peerGidHigh, peerGidLow);
        }
        peer.sourceGidIndex(sourceGidIndex).hopLimit(64).destinationMac(resolver.resolve(peerGidHigh, peerGidLow));
    }

    /** The source of the datagram at {@code grh} into the channel's source GID; the index of our GID it was for. */
    private int readSource(final int grh, final boolean ipv6)
    {
        return gsi.readSource(grh, ipv6);
    }

    private void sendReject(final long transactionId, final int remoteCommId, final int localCommId,
        final int reason, final CmConnection addressed)
    {
        rej.wrapAt(scratch, 0).initialise(CmMadFlyweight.ATTR_REJ, transactionId).localCommId(localCommId)
            .remoteCommId(remoteCommId);
        rej.messageRejected(CmRejFlyweight.MESSAGE_REQ).reason(reason);
        count(CmCounter.REJECTS_SENT);
        sendMad(addressed.peer, scratch);
    }

    /**
     * A REQ of ours given up (its retries ran out, or the application released it): a REJ "timeout" with our CA GUID,
     * as Linux's CM sends one ({@code cm_destroy_id}), so that a peer which took the REQ, but whose MRA or REP we never
     * heard, lets go of it.
     */
    private void rejectTimedOut(final CmConnection c)
    {
        rej.wrapAt(scratch, 0).initialise(CmMadFlyweight.ATTR_REJ, c.transactionId).localCommId(c.localCommId)
            .remoteCommId(c.remoteCommId);
        rej.messageRejected(CmRejFlyweight.MESSAGE_REQ).reason(CmRejFlyweight.REASON_TIMEOUT).rejectInfoGuid(caGuid);
        count(CmCounter.REJECTS_SENT);
        sendMad(c.peer, scratch);
    }

    /** Keeps the MAD in {@link #scratch} as the connection's last, sends it and arms its retransmission. */
    private void sendAndAwait(final CmConnection c, final long nowNs)
    {
        scratch.getBytes(0, c.lastSent);
        retransmitter.sendAndAwait(c, nowNs);
    }

    private void stopAwaiting(final CmConnection c)
    {
        retransmitter.stopAwaiting(c);
    }

    /** The connection closed: it stays held (and its QP alive) until its timewait ends. Once per connection. */
    private void enterTimewait(final CmConnection c, final long nowNs)
    {
        if (c.inTimewait)
        {
            return;
        }
        stopAwaiting(c);
        connections.enterTimewait(c, nowNs + (timewaitNs >= 0 ? timewaitNs : timeoutNs(c.localAckTimeout)),
            c.qpConnected);
    }

    private void destroyQp(final CmConnection c)
    {
        qps.destroy(c);
    }

    /** Sends the connection's last MAD again (a duplicate answered, or an RTU / DREP that needs no reply). */
    private void transmit(final CmConnection c)
    {
        gsi.send(c.peer, c.lastSent);
    }

    private void sendMad(final AddressVector to, final UnsafeBuffer from)
    {
        gsi.send(to, from);
    }

    private static void checkPrivateData(final byte[] privateData, final int maxBytes, final String message)
    {
        if (privateData.length > maxBytes)
        {
            throw new IllegalArgumentException("a " + message + " carries at most " + maxBytes +
                " bytes of private data, not " + privateData.length);
        }
    }

    /** IBTA's timeout encoding: 4.096 µs × 2^value. */
    public static long timeoutNs(final int value)
    {
        return 4096L << Math.min(value, 31);
    }

    static boolean isIpv4(final long gidHigh, final long gidLow)
    {
        return gidHigh == 0 && (gidLow >>> 32) == 0xFFFF;
    }

    /** The EUI-64 of a MAC, which rxe also uses as its node GUID. */
    public static long eui64(final long mac)
    {
        return ((mac >>> 24) ^ 0x02_0000L) << 40 | 0xFF_FEL << 24 | (mac & 0xFF_FFFFL);
    }

    /** Destroys the GSI QP, and the QPs of released connections still in their timewait. */
    @Override
    public void close()
    {
        connections.forEach(c ->
        {
            if (c.released)
            {
                destroyQp(c);
            }
            qps.releaseQpn(c);
        });
        gsi.close();
    }
}
