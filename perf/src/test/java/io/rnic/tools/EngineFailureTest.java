package io.rnic.tools;

import io.rnic.datapath.endpoint.InterfaceAddresses;
import io.rnic.datapath.port.FrameHandler;
import io.rnic.datapath.port.InMemoryPort;
import io.rnic.datapath.port.PacketPort;
import io.rnic.tools.perftest.PerftestTool;
import io.rnic.transport.LocalPort;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An engine thread that fails stops the tool with one line: at start-up at once, and while the server waits for its
 * client (which it does as long as it takes) within a fraction of a second, never a hang. The servers are given an
 * accept timeout far longer than the test waits, so a tool that does not notice fails on that instead.
 */
class EngineFailureTest
{
    private static final long MAC = 0x02_00_00_00_0F_01L;

    @Test
    void shouldStopAtOnceWhenAnEngineThreadCannotStart() throws Exception
    {
        final String name = register("start", new ForwardingPacketPort(ports()[0])
        {
            @Override
            public void onEngineThreadStart()
            {
                throw new IllegalStateException("no rings for the engine");
            }
        });
        final long startNs = System.nanoTime();
        final CapturedRun run = server(name);
        assertEquals(2, run.status(), run.out() + run.err());
        assertEquals("the engine thread could not start: no rings for the engine", run.err().trim());
        assertTrue(!run.out().contains("Waiting for client"), run.out());
        assertTrue(System.nanoTime() - startNs < 15_000_000_000L, "at once, not after the accept timeout");
    }

    @Test
    void shouldStopWaitingForItsClientWhenTheEngineThreadFails() throws Exception
    {
        // once, the first time the engine polls, as a bug in the duty cycle would: the engine goes on (a duty cycle
        // that throws every time never runs the QP commands either, and RnicEngine.execute waits for them for ever)
        final String name = register("wait", new ForwardingPacketPort(ports()[0])
        {
            private boolean broken;

            @Override
            public int receive(final FrameHandler handler, final int limit)
            {
                if (!broken)
                {
                    broken = true;
                    throw new IllegalStateException("the ring broke");
                }
                return port.receive(handler, limit);
            }
        });
        final long startNs = System.nanoTime();
        final java.io.PrintStream stderr = System.err;
        final java.io.ByteArrayOutputStream endpointErr = new java.io.ByteArrayOutputStream();
        final CapturedRun run;
        System.setErr(new java.io.PrintStream(endpointErr, true, java.nio.charset.StandardCharsets.UTF_8));
        try
        {
            run = server(name);
        }
        finally
        {
            System.setErr(stderr);
        }
        assertEquals("", endpointErr.toString(java.nio.charset.StandardCharsets.UTF_8),
            "the endpoint printed the failure too: the user would read it twice");
        assertEquals(2, run.status(), run.out() + run.err());
        assertTrue(run.err().matches("the engine thread failed: java.lang.IllegalStateException: the ring broke " +
            "\\(while waiting for a client on TCP port \\d+\\)\\R"), run.err());
        assertTrue(System.nanoTime() - startNs < 15_000_000_000L, "at once, not after the accept timeout");
    }

    private static CapturedRun server(final String name) throws IOException
    {
        return CapturedRun.of((args, out, err) -> PerftestTool.run(ToolKind.WRITE_BW, args, out, err),
            List.of("--port", "memory", "-d", name, "-p", String.valueOf(freeTcpPort()), "--idle", "yield",
                "--accept-timeout-ms", "60000"));
    }

    private static InMemoryPort[] ports()
    {
        return InMemoryPort.pair(MAC, MAC + 1, 4096, 1 << 20);
    }

    private static String register(final String what, final PacketPort port)
    {
        final String name = "engine-fails-" + what + "-" + ThreadLocalRandom.current().nextInt(1 << 20);
        final LocalPort addressing = new LocalPort(MAC).ethernetMtu(1500);
        addressing.addGid(0xFE80_0000_0000_0000L, InterfaceAddresses.eui64(MAC));
        addressing.addIpv4(0x0A5B_0001);
        Ports.registerInMemory(name, port, addressing);
        return name;
    }

    private static int freeTcpPort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0))
        {
            return socket.getLocalPort();
        }
    }
}
