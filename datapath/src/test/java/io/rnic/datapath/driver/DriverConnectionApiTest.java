package io.rnic.datapath.driver;

import io.rnic.client.DriverContext;
import io.rnic.datapath.cm.RdmaCm;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The connection API through a driver's client: not there yet, and it says so in one line naming the alternative. */
class DriverConnectionApiTest
{
    @Test
    void shouldRefuseTheConnectionApiThroughADriverNamingTheAlternative() throws Exception
    {
        try (DriverFixture fixture = DriverFixture.withTimeoutMs(2_000);
            DriverContext client = DriverContext.open(fixture.directory))
        {
            final UnsupportedOperationException error =
                assertThrows(UnsupportedOperationException.class, () -> RdmaCm.open(client));
            assertEquals("the RDMA CM connection API runs on an EmbeddedContext only, not yet through a driver " +
                "(DriverContext): exchange QPN, PSN, R_Key and address out of band (e.g. over TCP) and connect the QP " +
                "with ConnectParameters", error.getMessage());
        }
    }
}
