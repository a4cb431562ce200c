package io.rnic.datapath.afpacket;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A veth pair in the root network namespace with unique names, up, without IPv6 (no router solicitations or DAD
 * frames in the way), deleted by {@link #close} — for tests that need a real kernel interface. Needs root.
 */
final class VethPair implements AutoCloseable
{
    final String a;
    final String b;

    VethPair(final int mtu) throws IOException, InterruptedException
    {
        final String base = "rt" + Long.toString(ProcessHandle.current().pid() % 100_000, 36) +
            Integer.toString(ThreadLocalRandom.current().nextInt(36 * 36), 36);
        a = base + "a";
        b = base + "b";
        run("ip", "link", "add", a, "mtu", String.valueOf(mtu), "type", "veth", "peer", "name", b, "mtu",
            String.valueOf(mtu));
        try
        {
            for (final String end : List.of(a, b))
            {
                run("sysctl", "-qw", "net.ipv6.conf." + end + ".disable_ipv6=1");
                run("ip", "link", "set", end, "up");
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    static boolean available()
    {
        try
        {
            return "0".equals(new String(new ProcessBuilder("id", "-u").start().getInputStream().readAllBytes(),
                StandardCharsets.US_ASCII).trim()) && new ProcessBuilder("ip", "-V").start().waitFor() == 0;
        }
        catch (final IOException | InterruptedException ex)
        {
            return false;
        }
    }

    static void run(final String... command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0)
        {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
    }

    @Override
    public void close()
    {
        try
        {
            new ProcessBuilder("ip", "link", "del", a).redirectErrorStream(true).start().waitFor(30, TimeUnit.SECONDS);
        }
        catch (final IOException ex)
        {
            // nothing to delete
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
