package io.rnic.datapath.afpacket;

import io.rnic.testing.TopologyScript;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A veth pair in the root network namespace with unique names, up, without IPv6 (no router solicitations or DAD
 * frames in the way), deleted by {@link #close} — for tests that need a real kernel interface. Made by
 * deploy/topology.sh {@code up --root} (through {@link TopologyScript}). Needs root.
 */
final class VethPair implements AutoCloseable
{
    final String a;
    final String b;
    private final String name;

    VethPair(final int mtu) throws IOException, InterruptedException
    {
        name = "rt" + Long.toString(ProcessHandle.current().pid() % 100_000, 36) +
            Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36), 36);
        final Map<String, String> pair;
        try
        {
            pair = TopologyScript.up(name, "--root", "--mtu", String.valueOf(mtu));
        }
        catch (final IOException | RuntimeException ex)
        {
            close();
            throw ex;
        }
        a = pair.get("RNIC_IF_A");
        b = pair.get("RNIC_IF_B");
    }

    static boolean available()
    {
        return TopologyScript.available();
    }

    @Override
    public void close()
    {
        TopologyScript.down(name);
    }
}
