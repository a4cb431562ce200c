package io.rnic.datapath.endpoint;

import io.rnic.transport.LocalPort;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The GID table of an interface, laid out as Linux Soft-RoCE lays it out so that the GID indexes users pass to
 * tools ({@code -x 1}, {@code -g 1}) mean the same thing: index 0 is the IPv6 link-local GID derived from the MAC
 * (EUI-64), then the interface's IPv4 addresses as {@code ::ffff:a.b.c.d}, then its other IPv6 addresses.
 */
public final class InterfaceAddresses
{
    private InterfaceAddresses()
    {
    }

    /**
     * The port of a kernel interface in the current network namespace: MAC and MTU from sysfs, addresses from the
     * kernel (an interface without any address still gets its fe80:: GID, index 0).
     */
    public static LocalPort of(final String interfaceName)
    {
        final Path sys = Path.of("/sys/class/net", interfaceName);
        if (interfaceName.isEmpty() || interfaceName.contains("/") || !Files.isDirectory(sys))
        {
            throw new IllegalArgumentException("no interface named '" + interfaceName + "' in this network namespace" +
                " (interfaces: " + interfaceNames() + ")");
        }
        final long mac;
        final int mtu;
        try
        {
            final String text = Files.readString(sys.resolve("address")).trim();
            final String[] parts = text.split(":");
            if (parts.length != 6)
            {
                throw new IllegalArgumentException("interface " + interfaceName + " has no Ethernet MAC address");
            }
            long value = 0;
            for (final String part : parts)
            {
                value = (value << 8) | Integer.parseInt(part, 16);
            }
            mac = value;
            mtu = Integer.parseInt(Files.readString(sys.resolve("mtu")).trim());
        }
        catch (final IOException | NumberFormatException ex)
        {
            throw new IllegalArgumentException("cannot read the MAC address and MTU of " + interfaceName + " from " +
                sys + ": " + ex.getMessage(), ex);
        }
        final LocalPort port = new LocalPort(mac).ethernetMtu(mtu);
        port.addGid(0xFE80_0000_0000_0000L, eui64(mac));
        final List<InterfaceAddress> addresses;
        try
        {
            final NetworkInterface nif = NetworkInterface.getByName(interfaceName);
            addresses = nif == null ? List.of() : nif.getInterfaceAddresses(); // null: no address at all
        }
        catch (final SocketException ex)
        {
            throw new IllegalArgumentException("cannot read the addresses of " + interfaceName + ": " +
                ex.getMessage(), ex);
        }
        for (final InterfaceAddress address : addresses)
        {
            if (address.getAddress() instanceof Inet4Address v4)
            {
                port.addIpv4(ByteBuffer.wrap(v4.getAddress()).getInt());
            }
        }
        for (final InterfaceAddress address : addresses)
        {
            if (address.getAddress() instanceof Inet6Address v6)
            {
                final ByteBuffer bytes = ByteBuffer.wrap(v6.getAddress());
                final long high = bytes.getLong();
                final long low = bytes.getLong();
                if (!(high == 0xFE80_0000_0000_0000L && low == eui64(mac)))
                {
                    port.addGid(high, low);
                }
            }
        }
        return port;
    }

    /** The modified EUI-64 interface identifier of a MAC (RFC 4291 appendix A): what rxe's GID 0 carries. */
    public static long eui64(final long mac)
    {
        final long oui = (mac >>> 24) & 0xFF_FFFFL;
        final long nic = mac & 0xFF_FFFFL;
        return ((oui ^ 0x02_0000L) << 40) | (0xFF_FEL << 24) | nic;
    }

    public static long macOf(final byte[] hardware)
    {
        long mac = 0;
        for (final byte b : hardware)
        {
            mac = (mac << 8) | (b & 0xFF);
        }
        return mac;
    }

    public static String formatMac(final long mac)
    {
        final StringBuilder text = new StringBuilder(17);
        for (int shift = 40; shift >= 0; shift -= 8)
        {
            if (shift != 40)
            {
                text.append(':');
            }
            text.append(String.format("%02x", (mac >>> shift) & 0xFF));
        }
        return text.toString();
    }

    /** A GID as an {@link InetAddress} (IPv4 for a mapped GID), for messages. */
    public static InetAddress gidAddress(final long high, final long low)
    {
        try
        {
            if (high == 0 && (low >>> 32) == 0xFFFF)
            {
                return InetAddress.getByAddress(ByteBuffer.allocate(4).putInt((int)low).array());
            }
            return InetAddress.getByAddress(ByteBuffer.allocate(16).putLong(high).putLong(low).array());
        }
        catch (final java.net.UnknownHostException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** The GID of an address: IPv4 mapped, IPv6 as is. */
    public static long[] gidOf(final InetAddress address)
    {
        final byte[] raw = address.getAddress();
        if (raw.length == 4)
        {
            return new long[]{0, 0x0000_FFFF_0000_0000L | (ByteBuffer.wrap(raw).getInt() & 0xFFFF_FFFFL)};
        }
        final ByteBuffer bytes = ByteBuffer.wrap(raw);
        return new long[]{bytes.getLong(), bytes.getLong()};
    }

    private static String interfaceNames()
    {
        try (Stream<Path> entries = Files.list(Path.of("/sys/class/net")))
        {
            return String.join(", ", entries.map(p -> p.getFileName().toString()).sorted().toList());
        }
        catch (final IOException ex)
        {
            return "unknown";
        }
    }
}
