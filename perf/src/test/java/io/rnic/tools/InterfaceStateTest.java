package io.rnic.tools;

import io.rnic.cli.CliRunner;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A tool refuses an interface whose port would not be ACTIVE (perftest's check), in one line before it opens
 * anything: one that is down, and one that is up without a carrier (a veth whose peer is down). The veth pair is
 * made here, uniquely named, never up on both ends, and deleted even when the test fails.
 */
class InterfaceStateTest
{
    @Test
    void shouldRefuseAnInterfaceThatIsDownOrHasNoCarrier() throws Exception
    {
        assumeTrue(NetnsTopology.available(), "needs root and ip(8)");
        final String name = "rnicst" + ThreadLocalRandom.current().nextInt(1 << 16);
        final String a = name + "a";
        final String b = name + "b";
        assumeTrue(ip("link", "add", a, "type", "veth", "peer", "name", b), "cannot make a veth pair");
        try
        {
            // servers on a free TCP port: the refusal comes before any listening, and nothing is sent anywhere
            final String port = String.valueOf(freeTcpPort());
            final List<String> down = CliRunner.run("write-bw", "-d", a, "-p", port);
            assertEquals("2", down.get(0), down.toString());
            assertEquals("rnic write-bw: interface " + a + " is down: bring it up (ip link set " + a + " up) or " +
                "name another with -d", down.get(2).lines().findFirst().orElseThrow());

            assertTrue(ip("link", "set", a, "up"));
            final List<String> noCarrier = CliRunner.run("send-lat", "-d", a, "-p", port);
            assertEquals("2", noCarrier.get(0), noCarrier.toString());
            assertEquals("rnic send-lat: interface " + a + " is up but its link is lowerlayerdown (no carrier: a " +
                "cable, or a veth whose peer is down): the port is not active",
                noCarrier.get(2).lines().findFirst().orElseThrow());
            assertEquals("", noCarrier.get(1));
        }
        finally
        {
            ip("link", "del", a);
        }
    }

    private static int freeTcpPort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return socket.getLocalPort();
        }
    }

    private static boolean ip(final String... args) throws IOException, InterruptedException
    {
        final String[] command = new String[args.length + 1];
        command[0] = "ip";
        System.arraycopy(args, 0, command, 1, args.length);
        return new ProcessBuilder(command).redirectErrorStream(true).start().waitFor() == 0;
    }
}
