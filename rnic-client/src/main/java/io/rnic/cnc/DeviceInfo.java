package io.rnic.cnc;

import org.agrona.concurrent.AtomicBuffer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the driver says of its device in the CnC file, for {@code devinfo} and for clients (the port's MAC, MTU and
 * GIDs): ordered {@code key=value} lines, UTF-8, after an {@code int} length that the driver writes last. A small
 * text block rather than a flyweight: it is written once at start (and again when the port changes), read by tools.
 */
public final class DeviceInfo
{
    /** The port's MAC, 12 hex digits: what clients put in address vectors' source and ARP sees. */
    public static final String PORT_MAC = "port_mac";
    /** The port's Ethernet MTU in bytes (the largest path MTU a QP may use follows from it). */
    public static final String PORT_ETHERNET_MTU = "port_ethernet_mtu";
    /** {@code port_gid_<index>}: a GID of the table, as 32 hex digits; a client's source GID indexes name these. */
    public static final String PORT_GID_PREFIX = "port_gid_";

    private static final int LENGTH_OFFSET = 0;
    private static final int TEXT_OFFSET = 4;

    private DeviceInfo()
    {
    }

    /** Writes {@code entries} in their order; the previous block stays readable until the new length lands. */
    public static void write(final AtomicBuffer buffer, final List<Map.Entry<String, String>> entries)
    {
        final StringBuilder text = new StringBuilder();
        for (final Map.Entry<String, String> entry : entries)
        {
            if (entry.getKey().indexOf('=') >= 0 || entry.getKey().indexOf('\n') >= 0 ||
                entry.getValue().indexOf('\n') >= 0)
            {
                throw new IllegalArgumentException("device info entry cannot hold '=' in a key or a newline: " + entry);
            }
            text.append(entry.getKey()).append('=').append(entry.getValue()).append('\n');
        }
        final byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        if (TEXT_OFFSET + bytes.length > buffer.capacity())
        {
            throw new IllegalArgumentException("device info of " + bytes.length + " bytes does not fit the CnC's " +
                buffer.capacity());
        }
        buffer.putIntOrdered(LENGTH_OFFSET, 0);
        buffer.putBytes(TEXT_OFFSET, bytes);
        buffer.putIntOrdered(LENGTH_OFFSET, bytes.length);
    }

    /** The entries, in the driver's order; empty while the driver has written none. */
    public static List<Map.Entry<String, String>> read(final AtomicBuffer buffer)
    {
        final int length = buffer.getIntVolatile(LENGTH_OFFSET);
        final List<Map.Entry<String, String>> entries = new ArrayList<>();
        if (length <= 0 || TEXT_OFFSET + length > buffer.capacity())
        {
            return entries;
        }
        final byte[] bytes = new byte[length];
        buffer.getBytes(TEXT_OFFSET, bytes);
        for (final String line : new String(bytes, StandardCharsets.UTF_8).split("\n"))
        {
            final int equals = line.indexOf('=');
            if (equals > 0)
            {
                entries.add(Map.entry(line.substring(0, equals), line.substring(equals + 1)));
            }
        }
        return entries;
    }

    /** The value of {@code key}, or null. */
    public static String value(final List<Map.Entry<String, String>> entries, final String key)
    {
        for (final Map.Entry<String, String> entry : entries)
        {
            if (entry.getKey().equals(key))
            {
                return entry.getValue();
            }
        }
        return null;
    }
}
