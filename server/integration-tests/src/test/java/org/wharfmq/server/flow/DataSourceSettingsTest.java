package org.wharfmq.server.flow;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.wharfmq.server.cli.ConfigurationFile;
import org.wharfmq.server.config.ConfigurationException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The flow host's dataSources: in wharf.yaml, as the server reads them: values, defaults, and refusals that name the key. */
class DataSourceSettingsTest {

    @TempDir
    Path dir;

    @Test
    void dataSourcesAreReadWithTheirDefaults() throws IOException {
        List<DataSourceConfig> dataSources = load("""
                dataSources:
                  - name: orders
                    url: jdbc:postgresql://db:5432/orders
                    user: wharf
                    password: secret
                    poolSize: 4
                    connectionTimeoutMillis: 2000
                    xa: true
                  - name: samples
                    url: jdbc:h2:./data/h2/samples
                """).flowHost().dataSources();
        assertEquals(List.of(new DataSourceConfig("orders", "jdbc:postgresql://db:5432/orders", "wharf", "secret", 4, 2000)
                        .withXa(true),
                new DataSourceConfig("samples", "jdbc:h2:./data/h2/samples", null, null,
                        FlowHostConfiguration.DataSourceEntry.POOL_SIZE.defaultValue(),
                        FlowHostConfiguration.DataSourceEntry.CONNECTION_TIMEOUT_MILLIS.defaultValue())),
                dataSources);
        assertFalse(dataSources.get(0).toString().contains("secret"), "a password in a log line");
    }

    @Test
    void anUrlThatIsNotJdbcIsRefusedNamingTheKeyAndTheFix() throws IOException {
        refused("""
                dataSources:
                  - name: orders
                    url: postgresql://db:5432/orders
                """, "Setting url of data source 'orders' must be a JDBC URL (jdbc:...), e.g. ", "(in ", " at line 3)");
    }

    @Test
    void xaOnADatabaseCoordinatedTransactionsDoNotSupportIsRefused() throws IOException {
        refused("""
                dataSources:
                  - name: orders
                    url: jdbc:mysql://db:3306/orders
                    xa: true
                """, "'dataSources[0].xa'", "H2 (jdbc:h2:) and PostgreSQL (jdbc:postgresql:)");
    }

    @Test
    void aDataSourceWithoutANameIsRefused() throws IOException {
        refused("""
                dataSources:
                  - url: jdbc:h2:mem:x
                """, "'dataSources[0].name'", "needs a name");
    }

    @Test
    void twoDataSourcesOfOneNameAreRefused() throws IOException {
        refused("""
                dataSources:
                  - name: orders
                    url: jdbc:h2:mem:a
                  - name: orders
                    url: jdbc:h2:mem:b
                """, "'dataSources[1].name'", "'orders' is used twice");
    }

    @Test
    void aMisspeltKeyIsRefusedListingTheKnownOnes() throws IOException {
        refused("""
                dataSources:
                  - name: orders
                    url: jdbc:h2:mem:a
                    maxPoolSize: 3
                """, "Unknown setting 'dataSources[0].maxPoolSize'", "poolSize");
    }

    @Test
    void aPoolOfNoConnectionsIsRefused() throws IOException {
        refused("""
                dataSources:
                  - name: orders
                    url: jdbc:h2:mem:a
                    poolSize: 0
                """, "Setting poolSize of data source 'orders' must be at least 1, was 0. (in ", " at line 4)");
    }

    private ConfigurationFile load(String yaml) throws IOException {
        Path file = dir.resolve("wharf.yaml");
        Files.writeString(file, yaml);
        return ConfigurationFile.load(file);
    }

    private void refused(String yaml, String... expected) {
        ConfigurationException e = assertThrows(ConfigurationException.class, () -> load(yaml));
        for (String part : expected) {
            assertTrue(e.getMessage().contains(part), e.getMessage());
        }
    }
}
