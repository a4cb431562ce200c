package io.rnic.client;

import io.rnic.cm.CmCounter;
import io.rnic.cm.CmId;
import io.rnic.cm.CmService;
import io.rnic.cm.CmState;
import io.rnic.cnc.CmIdCodec;
import io.rnic.device.QueuePair;
import io.rnic.status.CounterTypes;
import io.rnic.verbs.EventRing;
import io.rnic.verbs.VerbsException;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.status.CountersReader;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * The RDMA CM through a driver: the driver runs the device's one connection manager for all its clients; this
 * forwards a client's calls to it ({@code CM_*} commands) and keeps a copy of each of its connections
 * ({@link ClientCmId}), which the driver refreshes by pushing each change into the client's event ring
 * ({@link ClientEvents}); a caller that waits ({@link #await}) sleeps on the ring's futex until a push wakes it, as a
 * librdmacm application blocks reading its event channel. The calls and their meaning are those of the embedded
 * {@code CmAgent}.
 * <p>
 * Thread-safe: the calls hold this object's lock for as long as a command to the driver takes, never while waiting.
 */
public final class ClientConnectionManager implements CmService
{
    private static final long RESOLVE_TIMEOUT_MS = 10_000;

    private final DriverContext context;
    private final DriverConnection connection;
    private final DriverProxy driver;
    private final ClientEvents events;
    private final Int2ObjectHashMap<ClientCmId> ids = new Int2ObjectHashMap<>();
    private final ArrayDeque<ClientCmId> requests = new ArrayDeque<>();
    private final Set<Integer> listening = new HashSet<>();
    private boolean closed;
    private volatile int typeOfService = -1;

    ClientConnectionManager(
        final DriverContext context,
        final DriverConnection connection,
        final DriverProxy driver,
        final ClientEvents events)
    {
        this.context = context;
        this.connection = connection;
        this.driver = driver;
        this.events = events;
        events.add(this);
    }

    /**
     * librdmacm's {@code rdma_set_option(RDMA_OPTION_ID_TOS)} for the connections this client makes from now on
     * (0..255: the traffic class of the REQ and of the QP, its upper six bits the DSCP); the driver's default else.
     */
    public ClientConnectionManager typeOfService(final int typeOfService)
    {
        if (typeOfService < 0 || typeOfService > 255)
        {
            throw new IllegalArgumentException("type of service " + typeOfService + " out of range 0..255");
        }
        this.typeOfService = typeOfService;
        return this;
    }

    public synchronized void listen(final int port)
    {
        checkOpen();
        driver.cmListen(port);
        listening.add(port);
    }

    public synchronized void stopListening(final int port)
    {
        checkOpen();
        if (listening.remove(port))
        {
            driver.cmStopListen(port);
        }
    }

    /** Resolves the peer's MAC through the driver (waiting for its ARP), then has the driver send the REQ. */
    public CmId connect(final QueuePair qp, final int sgidIndex, final long peerGidHigh, final long peerGidLow,
        final int port, final int responderResources, final int initiatorDepth, final byte[] privateData)
    {
        return connect(qp, sgidIndex, peerGidHigh, peerGidLow, port, responderResources, initiatorDepth, privateData,
            -1);
    }

    /** As above, at {@code typeOfService} (0..255), or this client's ({@link #typeOfService(int)}) with -1. */
    public CmId connect(final QueuePair qp, final int sgidIndex, final long peerGidHigh, final long peerGidLow,
        final int port, final int responderResources, final int initiatorDepth, final byte[] privateData,
        final int typeOfService)
    {
        if (typeOfService < -1 || typeOfService > 255)
        {
            throw new IllegalArgumentException("type of service " + typeOfService + " out of range 0..255");
        }
        synchronized (this)
        {
            checkOpen();
        }
        final int qpHandle = context.handleOf(qp);
        context.resolveMac(address(peerGidHigh, peerGidLow), sgidIndex, Duration.ofMillis(RESOLVE_TIMEOUT_MS));
        synchronized (this)
        {
            checkOpen();
            final int handle = driver.cmConnect(qpHandle, sgidIndex, peerGidHigh, peerGidLow, port, responderResources,
                initiatorDepth, typeOfService >= 0 ? typeOfService : this.typeOfService, privateData);
            final ClientCmId id = new ClientCmId(handle, qp, CmState.REQ_SENT);
            ids.put(handle, id);
            return id;
        }
    }

    public CmId awaitConnectRequest(final long timeoutNs)
    {
        final ClientCmId[] request = new ClientCmId[1];
        return await(() -> (request[0] = takeRequest()) != null, timeoutNs) ? request[0] : null;
    }

    public synchronized void accept(final CmId request, final QueuePair qp, final int responderResources,
        final int initiatorDepth, final byte[] privateData)
    {
        checkOpen();
        final ClientCmId id = own(request);
        driver.cmAccept(id.handle, context.handleOf(qp), responderResources, initiatorDepth, privateData);
        id.qp(qp);
    }

    public synchronized void reject(final CmId request, final byte[] privateData)
    {
        checkOpen();
        driver.cmReject(own(request).handle, privateData);
    }

    public synchronized void disconnect(final CmId connection)
    {
        checkOpen();
        driver.cmDisconnect(own(connection).handle);
    }

    /** The connection ends (a DREQ, or a REJ for a request not accepted); its QP, if any, is destroyed now. */
    public void release(final CmId connection)
    {
        final QueuePair qp;
        synchronized (this)
        {
            if (closed)
            {
                return;
            }
            final ClientCmId id = own(connection);
            driver.cmRelease(id.handle);
            ids.remove(id.handle);
            qp = id.qp();
        }
        if (qp != null && context.holds(qp))
        {
            context.destroyQp(qp);
        }
    }

    /**
     * Takes what the driver pushed and looks at {@code condition}; sleeps on the event ring's futex until the driver
     * pushes again, and looks again, until it holds or {@code timeoutNs} passed.
     *
     * @throws io.rnic.cnc.CncException when the driver is gone (its keepalive wakes the waiters to say so).
     */
    public boolean await(final BooleanSupplier condition, final long timeoutNs)
    {
        final long deadlineNs = System.nanoTime() + timeoutNs;
        while (true)
        {
            final int seen = events.wakeups(); // before looking: a push after the look changes it, and wakes at once
            synchronized (this)
            {
                checkOpen();
            }
            connection.checkAlive();
            events.drain();
            if (condition.getAsBoolean())
            {
                return true;
            }
            final long leftNs = deadlineNs - System.nanoTime();
            if (leftNs <= 0)
            {
                return false;
            }
            events.await(seen, leftNs);
        }
    }

    /** The driver's CM counters (its one manager's, for all its clients) that are not zero, from its CnC file. */
    public Map<CmCounter, Long> counters()
    {
        final CountersReader reader = new CountersReader(connection.cnc().countersMetadataBuffer(),
            connection.cnc().countersValuesBuffer(), StandardCharsets.US_ASCII);
        final Map<String, CmCounter> byLabel = new java.util.HashMap<>();
        for (final CmCounter counter : CmCounter.values())
        {
            byLabel.put(CmCounter.descriptions()[counter.ordinal()], counter);
        }
        final Map<CmCounter, Long> nonZero = new EnumMap<>(CmCounter.class);
        reader.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (typeId == CounterTypes.CONNECTION_MANAGER)
            {
                final CmCounter counter = byLabel.get(label.startsWith("cm: ") ? label.substring(4) : label);
                final long value = reader.getCounterValue(counterId);
                if (counter != null && value != 0)
                {
                    nonZero.put(counter, value);
                }
            }
        });
        return nonZero;
    }

    /**
     * Stops listening and ends every connection still held (DREQs, REJs), leaving their QPs to the application, as
     * the embedded agent's close does. Nothing to do once the context is closed: the driver ended them then.
     * Idempotent.
     */
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        events.remove(this);
        try
        {
            if (context.isOpen())
            {
                for (final Integer port : listening)
                {
                    driver.cmStopListen(port);
                }
                for (final ClientCmId id : ids.values())
                {
                    driver.cmRelease(id.handle);
                }
            }
        }
        finally
        {
            listening.clear();
            ids.clear();
            requests.clear();
        }
    }

    /**
     * A CM record of the client's event ring ({@link ClientEvents#drain}): a new state of one of this manager's ids,
     * or a new request to one of the client's ports (the first open manager takes it). Returns whether it took it.
     */
    synchronized boolean onCmEvent(final int kind, final int handle, final DirectBuffer buffer, final int offset)
    {
        final ClientCmId id = ids.get(handle);
        if (id != null)
        {
            id.update(buffer, offset);
            return true;
        }
        if (kind == EventRing.KIND_CM_REQUEST && !closed)
        {
            final ClientCmId request = new ClientCmId(handle, null, CmState.REQ_RCVD);
            request.update(buffer, offset);
            ids.put(handle, request);
            requests.add(request);
            return true;
        }
        return false; // an id released since, or another manager's
    }

    private synchronized ClientCmId takeRequest()
    {
        return requests.poll();
    }

    private ClientCmId own(final CmId id)
    {
        if (!(id instanceof ClientCmId clientId) || ids.get(clientId.handle) != clientId)
        {
            throw new IllegalArgumentException("not a connection of this connection manager: " + id);
        }
        return clientId;
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("this connection manager is closed");
        }
        if (!context.isOpen())
        {
            throw new IllegalStateException("the context of this connection manager is closed");
        }
    }

    private static InetAddress address(final long gidHigh, final long gidLow)
    {
        try
        {
            if (gidHigh == 0 && (gidLow >>> 32) == 0x0000_FFFFL)
            {
                return InetAddress.getByAddress(ByteBuffer.allocate(4).putInt((int)gidLow).array());
            }
            return InetAddress.getByAddress(ByteBuffer.allocate(16).putLong(gidHigh).putLong(gidLow).array());
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException("not an address: " + ex.getMessage());
        }
    }
}
