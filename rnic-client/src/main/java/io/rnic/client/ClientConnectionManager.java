package io.rnic.client;

import io.rnic.cm.CmCounter;
import io.rnic.cm.CmId;
import io.rnic.cm.CmService;
import io.rnic.cm.CmState;
import io.rnic.cnc.CmIdCodec;
import io.rnic.cnc.ControlProtocol;
import io.rnic.device.QueuePair;
import io.rnic.status.CounterTypes;
import io.rnic.verbs.VerbsException;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.status.CountersReader;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The RDMA CM through a driver: the driver runs the device's one connection manager for all its clients; this
 * forwards a client's calls to it ({@code CM_*} commands) and keeps a copy of each of its connections
 * ({@link ClientCmId}), refreshed by polling the driver while a caller waits ({@link #await}), as a librdmacm
 * application reads its event channel. The calls and their meaning are those of the embedded {@code CmAgent}, but
 * for one: a released connection's QP is destroyed at once, not after the connection's timewait (the driver leaves
 * the QP to its client, as {@code rdma_destroy_qp} does).
 * <p>
 * Thread-safe: the calls hold this object's lock for as long as a command to the driver takes, never while waiting.
 */
public final class ClientConnectionManager implements CmService
{
    /** How long a waiting caller sleeps between two polls of the driver: the CM's timers are milliseconds and more. */
    static final long POLL_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long RESOLVE_TIMEOUT_MS = 10_000;

    private final DriverContext context;
    private final DriverConnection connection;
    private final Int2ObjectHashMap<ClientCmId> ids = new Int2ObjectHashMap<>();
    private final ArrayDeque<ClientCmId> requests = new ArrayDeque<>();
    private final Set<Integer> listening = new HashSet<>();
    private boolean closed;
    private volatile int typeOfService = -1;

    ClientConnectionManager(final DriverContext context, final DriverConnection connection)
    {
        this.context = context;
        this.connection = connection;
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
        connection.call(ControlProtocol.CM_LISTEN, port);
        listening.add(port);
    }

    public synchronized void stopListening(final int port)
    {
        checkOpen();
        if (listening.remove(port))
        {
            connection.call(ControlProtocol.CM_STOP_LISTEN, port);
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
        final long[] args = new long[8 + CmIdCodec.PRIVATE_DATA_ARGS];
        args[0] = qpHandle;
        args[1] = sgidIndex;
        args[2] = peerGidHigh;
        args[3] = peerGidLow;
        args[4] = port;
        args[5] = responderResources;
        args[6] = initiatorDepth;
        args[7] = typeOfService >= 0 ? typeOfService : this.typeOfService;
        final int count = 8 + CmIdCodec.putPrivateData(privateData, args, 8);
        synchronized (this)
        {
            checkOpen();
            final int handle = (int)connection.call(ControlProtocol.CM_CONNECT, Arrays.copyOf(args, count))[0];
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
        final long[] args = new long[4 + CmIdCodec.PRIVATE_DATA_ARGS];
        args[0] = id.handle;
        args[1] = context.handleOf(qp);
        args[2] = responderResources;
        args[3] = initiatorDepth;
        final int count = 4 + CmIdCodec.putPrivateData(privateData, args, 4);
        connection.call(ControlProtocol.CM_ACCEPT, Arrays.copyOf(args, count));
        id.qp(qp);
    }

    public synchronized void reject(final CmId request, final byte[] privateData)
    {
        checkOpen();
        final long[] args = new long[1 + CmIdCodec.PRIVATE_DATA_ARGS];
        args[0] = own(request).handle;
        final int count = 1 + CmIdCodec.putPrivateData(privateData, args, 1);
        connection.call(ControlProtocol.CM_REJECT, Arrays.copyOf(args, count));
    }

    public synchronized void disconnect(final CmId connection)
    {
        checkOpen();
        this.connection.call(ControlProtocol.CM_DISCONNECT, own(connection).handle);
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
            this.connection.call(ControlProtocol.CM_RELEASE, id.handle);
            ids.remove(id.handle);
            qp = id.qp();
        }
        if (qp != null && context.holds(qp))
        {
            context.destroyQp(qp);
        }
    }

    public boolean await(final BooleanSupplier condition, final long timeoutNs)
    {
        final long deadlineNs = System.nanoTime() + timeoutNs;
        while (true)
        {
            pollDriver();
            if (condition.getAsBoolean())
            {
                return true;
            }
            final long leftNs = deadlineNs - System.nanoTime();
            if (leftNs <= 0)
            {
                return false;
            }
            LockSupport.parkNanos(Math.min(leftNs, POLL_INTERVAL_NS));
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
        try
        {
            if (context.isOpen())
            {
                for (final Integer port : listening)
                {
                    connection.call(ControlProtocol.CM_STOP_LISTEN, port);
                }
                for (final ClientCmId id : ids.values())
                {
                    connection.call(ControlProtocol.CM_RELEASE, id.handle);
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

    /** Takes every change the driver has for this client's ids. */
    private synchronized void pollDriver()
    {
        checkOpen();
        while (true)
        {
            final long[] values = connection.call(ControlProtocol.CM_POLL);
            final int count = connection.valueCount();
            final int kind = (int)values[CmIdCodec.KIND];
            if (kind == CmIdCodec.KIND_NONE || count < CmIdCodec.PRIVATE_DATA + 1)
            {
                return;
            }
            final int handle = (int)values[CmIdCodec.ID];
            ClientCmId id = ids.get(handle);
            if (kind == CmIdCodec.KIND_REQUEST && id == null)
            {
                id = new ClientCmId(handle, null, CmState.REQ_RCVD);
                ids.put(handle, id);
                id.update(values, count);
                requests.add(id);
            }
            else if (id != null)
            {
                id.update(values, count);
            }
        }
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
