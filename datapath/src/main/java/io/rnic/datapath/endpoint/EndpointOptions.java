package io.rnic.datapath.endpoint;

import io.rnic.datapath.agent.EngineAgent;

import java.nio.file.Path;

/**
 * How an endpoint runs its engine thread.
 *
 * @param cpu              CPU to pin the engine thread to, -1 for none.
 * @param idleStrategy     name understood by {@link io.rnic.datapath.agent.IdleStrategies}.
 * @param burst            frames received per duty cycle at most.
 * @param capture          pcap file for every frame received and sent, or null.
 * @param answerNeighbours answer ARP and neighbour solicitations for our addresses (a port without a kernel
 *                         behind it; on AF_PACKET the kernel answers).
 * @param holdRocePort     keep UDP 4791 open in the kernel so that it does not answer RoCEv2 packets with ICMP
 *                         port unreachable (AF_PACKET: the kernel sees every frame we see).
 * @param printEngineErrors print a line on standard error when an engine thread fails (an embedder has no other
 *                          notice; a tool that reports the failure itself turns it off, so the user reads it once).
 */
public record EndpointOptions(
    int cpu, String idleStrategy, int burst, Path capture, boolean answerNeighbours, boolean holdRocePort,
    boolean printEngineErrors)
{
    public static EndpointOptions defaults()
    {
        return new EndpointOptions(-1, "spin", EngineAgent.DEFAULT_BURST, null, false, true, true);
    }

    public EndpointOptions withPrintEngineErrors(final boolean print)
    {
        return new EndpointOptions(cpu, idleStrategy, burst, capture, answerNeighbours, holdRocePort, print);
    }

    public EndpointOptions withCpu(final int cpu)
    {
        return new EndpointOptions(cpu, idleStrategy, burst, capture, answerNeighbours, holdRocePort,
            printEngineErrors);
    }

    public EndpointOptions withIdleStrategy(final String name)
    {
        return new EndpointOptions(cpu, name, burst, capture, answerNeighbours, holdRocePort, printEngineErrors);
    }

    public EndpointOptions withCapture(final Path path)
    {
        return new EndpointOptions(cpu, idleStrategy, burst, path, answerNeighbours, holdRocePort, printEngineErrors);
    }

    public EndpointOptions withAnswerNeighbours(final boolean answer)
    {
        return new EndpointOptions(cpu, idleStrategy, burst, capture, answer, holdRocePort, printEngineErrors);
    }

    public EndpointOptions withHoldRocePort(final boolean hold)
    {
        return new EndpointOptions(cpu, idleStrategy, burst, capture, answerNeighbours, hold, printEngineErrors);
    }
}
