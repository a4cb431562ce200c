package io.rnic.datapath.driver;

import io.rnic.cnc.CncException;
import io.rnic.cnc.CncFile;
import io.rnic.cnc.ControlProtocol;
import io.rnic.cnc.DeviceInfo;
import io.rnic.datapath.agent.EngineAgent;
import io.rnic.datapath.endpoint.Endpoint;
import io.rnic.shm.FdSocketServer;
import io.rnic.shm.ShmException;
import io.rnic.transport.LocalPort;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.errors.DistinctErrorLog;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * {@code rnic driver}: one endpoint on one port, shared by every application of the machine through shared memory,
 * as Aeron's media driver shares its publications. It keeps a directory holding its CnC file ({@link CncFile}: the
 * clients' command ring, the answers, every counter, the error log, its heartbeat), the socket clients pass their
 * memfds over ({@link ControlProtocol#FD_SOCKET_FILE_NAME}, mode 0660 like the CnC file) and a lock that refuses a
 * second driver on it; the port's own lock refuses a second engine on the port. Clients attach with
 * {@code io.rnic.client.DriverContext}; their QPs run on the driver's engine threads.
 */
public final class Driver implements AutoCloseable
{
    /** Where a driver keeps its directory unless told: {@code /dev/shm/rnic-<port>}. */
    public static Path defaultDirectory(final String portName)
    {
        return Path.of("/dev/shm", "rnic-" + portName);
    }

    /** Tries to take a directory that drivers stopping at the same moment keep removing. */
    private static final int MAX_START_TRIES = 100;

    private final Path directory;
    private final boolean madeDirectory;
    private final DirectoryLock lock;
    private final CncFile cnc;
    private final FdSocketServer fdServer;
    private final Endpoint endpoint;
    private final DriverConductor conductor;
    private final AgentRunner conductorRunner;
    private final ClientQueues[] queues;
    private boolean closed;

    private Driver(
        final Path directory, final boolean madeDirectory, final DirectoryLock lock, final CncFile cnc, final FdSocketServer fdServer,
        final Endpoint endpoint, final DriverConductor conductor, final ClientQueues[] queues,
        final DistinctErrorLog errorLog)
    {
        this.directory = directory;
        this.madeDirectory = madeDirectory;
        this.lock = lock;
        this.cnc = cnc;
        this.fdServer = fdServer;
        this.endpoint = endpoint;
        this.conductor = conductor;
        this.queues = queues;
        final AtomicCounter noCounter = null;
        this.conductorRunner = new AgentRunner(new SleepingMillisIdleStrategy(1), errorLog::record, noCounter,
            conductor);
    }

    /**
     * Starts a driver in {@code directory} (made 0770 when missing, and then removed by {@link #close}) on the
     * endpoint {@code startEndpoint} opens, given the counters manager over the CnC file to count into.
     *
     * @throws CncException naming the running driver when another one holds the directory, or the owner of a
     *                      directory another user left.
     */
    public static Driver start(
        final Path directory, final long clientTimeoutNs, final Function<CountersManager, Endpoint> startEndpoint)
    {
        return start(directory, clientTimeoutNs, ClientQuotas.defaults(), startEndpoint, line ->
        {
        });
    }

    /**
     * As {@link #start(Path, long, Function)}, holding each client to {@code quotas}, with one line per client event
     * for {@code events}, on the driver's thread: a client that departed without detaching (it exited or was
     * killed), which is counted too ({@code driver clients departed without detaching}) and is no error of the
     * driver's.
     */
    public static Driver start(
        final Path directory, final long clientTimeoutNs, final ClientQuotas quotas,
        final Function<CountersManager, Endpoint> startEndpoint, final Consumer<String> events)
    {
        boolean madeDirectory = false;
        DirectoryLock lock = null;
        for (int tries = 0; lock == null; tries++)
        {
            if (tries == MAX_START_TRIES)
            {
                throw new CncException(directory + " vanished " + tries + " times while this driver took it: " +
                    "another driver keeps starting and stopping there (choose another --dir)");
            }
            madeDirectory = makeDirectory(directory);
            lock = DirectoryLock.acquire(directory); // null: a driver that stopped removed the directory meanwhile
        }
        CncFile cnc = null;
        FdSocketServer fdServer = null;
        Endpoint endpoint = null;
        try
        {
            // a driver killed with SIGKILL leaves its CnC file behind; we hold the lock, so no live driver owns it
            deleteQuietly(directory.resolve(CncFile.FILE_NAME));
            cnc = CncFile.create(directory, CncFile.Lengths.defaults(), clientTimeoutNs);
            fdServer = bindFdSocket(directory);
            final CountersManager counters = new CountersManager(cnc.countersMetadataBuffer(),
                cnc.countersValuesBuffer(), StandardCharsets.US_ASCII);
            final DistinctErrorLog errorLog = new DistinctErrorLog(cnc.errorLogBuffer(), SystemEpochClock.INSTANCE);
            final DriverCounters driverCounters = new DriverCounters(counters);
            endpoint = startEndpoint.apply(counters);
            DeviceInfo.write(cnc.deviceInfoBuffer(), describe(endpoint, quotas));
            final EngineAgent[] agents = endpoint.agents();
            final ClientQueues[] queues = new ClientQueues[agents.length];
            for (int i = 0; i < agents.length; i++)
            {
                queues[i] = new ClientQueues();
                agents[i].addApplication(queues[i]);
            }
            final DriverConductor conductor =
                new DriverConductor(cnc, endpoint, queues, errorLog, driverCounters, counters, fdServer, clientTimeoutNs,
                    quotas);
            conductor.events(events);
            final Driver driver = new Driver(directory, madeDirectory, lock, cnc, fdServer, endpoint, conductor, queues,
                errorLog);
            AgentRunner.startOnThread(driver.conductorRunner);
            cnc.markReady();
            return driver;
        }
        catch (final Throwable ex) // Agrona throws I/O errors unchecked: release all the same
        {
            if (endpoint != null)
            {
                endpoint.close();
            }
            if (fdServer != null)
            {
                fdServer.close();
            }
            if (cnc != null)
            {
                cnc.close();
            }
            deleteQuietly(directory.resolve(CncFile.FILE_NAME));
            lock.close();
            if (madeDirectory)
            {
                removeDirectoryQuietly(directory);
            }
            throw ex;
        }
    }

    /**
     * What devinfo shows, then the port's addressing in machine form ({@link DeviceInfo#PORT_MAC} and the rest):
     * clients build their view of the port, and the address vectors of their QPs, from it.
     */
    static List<Map.Entry<String, String>> describe(final Endpoint endpoint, final ClientQuotas quotas)
    {
        final LocalPort port = endpoint.localPort();
        final List<Map.Entry<String, String>> entries = new ArrayList<>(DeviceDescription.of(endpoint.port().name(),
            endpoint.port() instanceof io.rnic.datapath.afpacket.AfPacketPort ? DeviceDescription.PORT_KIND_AFPACKET :
            DeviceDescription.PORT_KIND_DPDK, port, endpoint.device().resources().limits(), quotas));
        entries.add(Map.entry(DeviceInfo.PORT_MAC, String.format("%012x", port.mac())));
        entries.add(Map.entry(DeviceInfo.PORT_ETHERNET_MTU, Integer.toString(port.ethernetMtu())));
        for (int i = 0; i < port.gidCount(); i++)
        {
            entries.add(Map.entry(DeviceInfo.PORT_GID_PREFIX + i,
                String.format("%016x%016x", port.gidHigh(i), port.gidLow(i))));
        }
        return entries;
    }

    private static FdSocketServer bindFdSocket(final Path directory)
    {
        try
        {
            return FdSocketServer.bind(directory.resolve(ControlProtocol.FD_SOCKET_FILE_NAME));
        }
        catch (final ShmException ex)
        {
            throw new CncException(ex.getMessage() + " (choose another --dir)");
        }
    }

    /** Makes the directory when missing, mode 0770 either way; whether this call made it. */
    private static boolean makeDirectory(final Path directory)
    {
        boolean made = false;
        try
        {
            if (!Files.isDirectory(directory))
            {
                Files.createDirectories(directory);
                made = true;
            }
            // owner and group only: whoever may attach may also post work to the port (see the README)
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwx---"));
            return made;
        }
        catch (final NoSuchFileException ex)
        {
            return made; // removed by a driver that stopped meanwhile: the lock finds it missing and we start over
        }
        catch (final IOException ex)
        {
            final String owner = ownerIfAnother(directory);
            if (owner != null)
            {
                throw new CncException("the driver directory " + directory + " belongs to " + owner + ", not to " +
                    System.getProperty("user.name") + " who runs this driver: a driver run as " + owner + " left it " +
                    "behind; remove it (rm -r " + directory + ") or choose another with --dir");
            }
            throw new CncException("cannot make the driver directory " + directory + ": " + ex.getMessage() +
                " (choose another with --dir)");
        }
    }

    /** The owner of {@code directory} when it is not this process's user, else null. */
    private static String ownerIfAnother(final Path directory)
    {
        try
        {
            final String owner = Files.getOwner(directory, LinkOption.NOFOLLOW_LINKS).getName();
            return owner.equals(System.getProperty("user.name")) ? null : owner;
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            return null;
        }
    }

    /** Removes the directory this driver made, when nothing else is in it (a driver starting there keeps it). */
    private static void removeDirectoryQuietly(final Path directory)
    {
        try
        {
            Files.deleteIfExists(directory);
        }
        catch (final IOException ex)
        {
            // not empty (a new driver's lock, a user's file) or not ours to remove: it stays
        }
    }

    public Path directory()
    {
        return directory;
    }

    public Endpoint endpoint()
    {
        return endpoint;
    }

    /** Clients attached now (read on any thread; exact once the conductor is idle). */
    public int clientCount()
    {
        return conductor.clientCount();
    }

    /**
     * Stops serving: destroys every client's QPs, CQs and memory regions, stops the endpoint, removes the CnC file (a
     * client's next call then says the driver is gone), the socket and the lock, and the directory when it made it.
     * Idempotent.
     */
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        // first, while the mapping lives on: a client whose QPs the reclaim below destroys, or whose peer leaves
        // because of it, learns that the driver stopped, not that its peer failed
        deleteQuietly(directory.resolve(CncFile.FILE_NAME));
        conductorRunner.close(); // onClose reclaims every client, with the engine threads still running
        for (int i = 0; i < queues.length; i++)
        {
            endpoint.agents()[i].removeApplication(queues[i]);
        }
        endpoint.close();
        fdServer.close(); // after the conductor: it polls the socket
        cnc.close();
        lock.close(); // removes driver.lock: nothing of this driver stays behind
        if (madeDirectory)
        {
            removeDirectoryQuietly(directory);
        }
    }

    private static void deleteQuietly(final Path path)
    {
        try
        {
            Files.deleteIfExists(path);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
