package io.rnic.datapath.endpoint;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The factory an application's tests use: two connected in-memory contexts whose addresses resolve over IPv4 and
 * IPv6, which run the verbs against each other, hold no UDP port in the host, and are both closed by one close.
 */
class InMemoryContextsTest
{
    @Test
    void shouldResolveBothAddressFamiliesAndRunRcOperationsWithoutHoldingTheRocePort() throws Exception
    {
        try (InMemoryContexts pair = InMemoryContexts.pair())
        {
            final Duration timeout = Duration.ofSeconds(5);
            assertEquals(InMemoryContexts.MAC_SECOND,
                pair.first().resolveMac(pair.secondIpv4(), InMemoryContexts.IPV4_GID_INDEX, timeout));
            assertEquals(InMemoryContexts.MAC_SECOND,
                pair.first().resolveMac(pair.secondIpv6(), InMemoryContexts.IPV6_GID_INDEX, timeout));
            assertEquals(InMemoryContexts.MAC_FIRST,
                pair.second().resolveMac(pair.firstIpv6(), InMemoryContexts.IPV6_GID_INDEX, timeout));
            assertEquals("192.0.2.1", pair.firstIpv4().getHostAddress());
            assertEquals("2001:db8:0:0:0:0:0:2", pair.secondIpv6().getHostAddress());

            EndpointPairScenario.rcOperations(pair.first(), pair.second(), pair.firstIpv4(), pair.secondIpv4());

            for (final EmbeddedContext each : new EmbeddedContext[]{ pair.first(), pair.second() })
            {
                final String report = each.endpoint().countersReport();
                assertTrue(report.matches("(?s).*kernel UDP 4791 +not held\n.*"), report);
            }
        }
    }

    @Test
    void shouldStopBothEngineThreadsOnClose()
    {
        final InMemoryContexts pair = InMemoryContexts.pair();
        // a resolution runs as a command on each engine thread: both run once these return
        final Duration timeout = Duration.ofSeconds(5);
        pair.first().resolveMac(pair.secondIpv4(), InMemoryContexts.IPV4_GID_INDEX, timeout);
        pair.second().resolveMac(pair.firstIpv4(), InMemoryContexts.IPV4_GID_INDEX, timeout);
        final Thread first = pair.first().endpoint().agent().thread();
        final Thread second = pair.second().endpoint().agent().thread();
        assertTrue(first.isAlive() && second.isAlive());
        pair.close();
        assertFalse(first.isAlive(), "first engine thread still runs");
        assertFalse(second.isAlive(), "second engine thread still runs");
    }
}
