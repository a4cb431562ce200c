package io.rnic.tools;

import io.rnic.datapath.afpacket.AfPacketConfig;
import io.rnic.datapath.afpacket.AfPacketPort;
import io.rnic.datapath.dpdk.DpdkConfig;
import io.rnic.datapath.dpdk.DpdkPort;
import io.rnic.datapath.driver.DeviceDescription;
import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.datapath.port.PacketPort;
import io.rnic.datapath.port.PortException;
import io.rnic.dpdkbindings.DpdkException;
import io.rnic.dpdkbindings.Eal;
import io.rnic.tools.UsageException;
import io.rnic.transport.LocalPort;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The port kinds the tools know: {@code afpacket} (a kernel interface through a raw socket; the default),
 * {@code dpdk} (a DPDK ethdev, with addresses given on the command line) and {@code memory} (in-process ports
 * registered by name, for tests and embedding).
 */
public final class Ports
{
    /** Where the kernel lists the interfaces of this network namespace. */
    private static final Path SYS_CLASS_NET = Path.of("/sys/class/net");
    /** The device's one port, as rxe's: perftest's and the pingpongs' {@code -i} (ibv_devinfo's {@code port:}). */
    public static final int IB_PORT = 1;
    private static final Map<String, PortFactory.OpenedPort> IN_MEMORY = new ConcurrentHashMap<>();

    private Ports()
    {
    }

    /**
     * Opens the port and sets its addressing's VLAN (the request's, or the kernel VLAN device's an AF_PACKET port
     * found) and CNP marking.
     */
    public static PortFactory.OpenedPort open(final PortFactory.Request request)
    {
        final PortFactory.OpenedPort opened = openKind(request);
        try
        {
            final int vlanId = opened.ports()[0].vlanId();
            opened.addressing().vlanId(vlanId != LocalPort.NO_VLAN ? vlanId : request.vlanId())
                .cnpDscp(request.cnpDscp()).cnpPriority(request.cnpPriority());
            return opened;
        }
        catch (final IllegalArgumentException ex)
        {
            opened.close();
            throw ex;
        }
    }

    private static PortFactory.OpenedPort openKind(final PortFactory.Request request)
    {
        final String iface = request.iface();
        final int engines = request.engines();
        return switch (request.kind())
        {
            case "afpacket" -> afPacket(iface, engines, request.qdiscBypass(), request.vlanId());
            case "dpdk" -> dpdk(request);
            case "memory" ->
            {
                if (engines != 1)
                {
                    throw new IllegalArgumentException("an in-memory port has one queue (--engines 1)");
                }
                final PortFactory.OpenedPort port = IN_MEMORY.remove(iface);
                if (port == null)
                {
                    // only code in the same JVM registers one: from the command line there is none
                    throw new IllegalArgumentException("no in-memory port named '" + iface + "': --port memory is " +
                        "for code that runs both endpoints in one JVM and registers them (registered: " +
                        IN_MEMORY.keySet() + "); from the command line use --port afpacket or dpdk");
                }
                yield port;
            }
            default -> throw new IllegalArgumentException("unknown port kind '" + request.kind() +
                "' (afpacket or dpdk)");
        };
    }

    /** Makes an in-memory port available, once, to a tool run with {@code --port memory -d NAME}. */
    public static void registerInMemory(final String name, final PacketPort port, final LocalPort addressing)
    {
        IN_MEMORY.put(name, new PortFactory.OpenedPort(new PacketPort[]{ port }, addressing));
    }

    /** One queue per engine thread; the GID table from the MAC (link-local) and the given addresses. */
    private static PortFactory.OpenedPort dpdk(final PortFactory.Request request)
    {
        final List<String> eal = request.ealArgs() != null ? request.ealArgs() : DpdkConfig.EAL_DEFAULT;
        // EAL's own output stays off the terminal unless RNIC_DEBUG asks for it; a DpdkException (DPDK missing, EAL
        // refusing, no such device) is not a usage mistake: its one line, without the tool's usage, is what the user
        // sees (its message names the fix, --port afpacket where DPDK is missing)
        Eal.init(eal, System.getenv("RNIC_DEBUG") != null);
        final DpdkPort[] ports;
        try
        {
            ports = DpdkPort.open(
                DpdkConfig.of(request.iface(), eal).withQueues(request.engines()).withMtu(request.portMtu()));
        }
        catch (final PortException ex)
        {
            // DPDK's refusal, not a usage mistake (the tools turn a PortException into one): its own line
            throw ex.getCause() instanceof DpdkException dpdk ? dpdk : ex;
        }
        final LocalPort local = new LocalPort(ports[0].macAddress()).ethernetMtu(ports[0].mtu());
        local.addGid(0xFE80_0000_0000_0000L, InterfaceAddresses.eui64(ports[0].macAddress()));
        for (final String address : request.addresses())
        {
            try
            {
                final long[] gid = InterfaceAddresses.gidOf(InetAddress.getByName(address));
                local.addGid(gid[0], gid[1]);
            }
            catch (final UnknownHostException ex)
            {
                throw new IllegalArgumentException("--ip " + address + ": " + ex.getMessage());
            }
        }
        return new PortFactory.OpenedPort(ports, local);
    }

    /** One socket per engine thread; several join one PACKET_FANOUT group, which spreads flows by hash. */
    private static PortFactory.OpenedPort afPacket(
        final String iface, final int engines, final boolean qdiscBypass, final int vlanId)
    {
        checkActive(iface);
        final PacketPort[] ports = new PacketPort[engines];
        final AfPacketConfig config = AfPacketConfig.of(iface).withQdiscBypass(qdiscBypass).withVlanId(vlanId)
            .withFanoutGroup(engines == 1 ? 0 : 1 + (int)(ProcessHandle.current().pid() % 0xFFFE));
        try
        {
            for (int i = 0; i < engines; i++)
            {
                ports[i] = AfPacketPort.open(config);
            }
            return new PortFactory.OpenedPort(ports, InterfaceAddresses.of(iface));
        }
        catch (final RuntimeException ex)
        {
            for (final PacketPort port : ports)
            {
                if (port != null)
                {
                    port.close();
                }
            }
            throw ex;
        }
    }

    /**
     * What {@code -d} names, as an interface: to perftest and rdma-core, {@code -d} names a device, and rnic's device
     * on {@code eth0} is {@code rnic_eth0} ({@code hca_id} in devinfo). So {@code rnic_eth0} means {@code eth0},
     * unless an interface of that very name exists; any other name is the interface (or DPDK port) itself.
     */
    public static String interfaceOf(final String deviceOrInterface)
    {
        return interfaceOf(deviceOrInterface, SYS_CLASS_NET);
    }

    /** {@link #interfaceOf(String)} with the interfaces listed in {@code sysClassNet}. */
    static String interfaceOf(final String deviceOrInterface, final Path sysClassNet)
    {
        final String prefix = DeviceDescription.DEVICE_NAME_PREFIX;
        if (deviceOrInterface.length() > prefix.length() && deviceOrInterface.startsWith(prefix) &&
            !deviceOrInterface.contains("/") && !Files.exists(sysClassNet.resolve(deviceOrInterface)))
        {
            return deviceOrInterface.substring(prefix.length());
        }
        return deviceOrInterface;
    }

    /**
     * perftest's and the pingpongs' {@code -i} ({@code --ib-port}): the device's port, which is 1, the only one.
     *
     * @throws UsageException for any other port, in one line.
     */
    public static int ibPort(final String option, final String value)
    {
        final long port = Arguments.number(option, value, 0, 255);
        if (port != IB_PORT)
        {
            throw new UsageException(option + " " + value + ": the device has one port, " + IB_PORT +
                " (as rxe's): give " + option + " " + IB_PORT + " or leave it out");
        }
        return IB_PORT;
    }

    /**
     * perftest refuses a port that is not ACTIVE: the same here, before anything opens, instead of a run whose frames
     * go nowhere; the carrier of an interface just brought up is waited for a short grace ({@link InterfaceState}).
     *
     * @throws IllegalArgumentException naming the interface, its state and what to do.
     */
    static void checkActive(final String iface)
    {
        InterfaceState.system().checkActive(iface);
    }

    /** The first interface that is up, not loopback, with a MAC: where the tools run without -d. */
    public static String defaultInterface()
    {
        try
        {
            for (final NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces()))
            {
                if (nif.isUp() && !nif.isLoopback() && nif.getHardwareAddress() != null)
                {
                    return nif.getName();
                }
            }
        }
        catch (final SocketException ex)
        {
            throw new UsageException("cannot list interfaces: " + ex.getMessage());
        }
        throw new UsageException("no Ethernet interface is up here: name one with -d IFACE");
    }
}
