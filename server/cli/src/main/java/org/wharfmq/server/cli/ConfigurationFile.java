package org.wharfmq.server.cli;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.wharfmq.server.Configuration;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.HttpConfig;
import org.wharfmq.server.config.MemoryPolicy;
import org.wharfmq.server.config.QueueDefinition;
import org.wharfmq.server.config.ServerConfig;
import org.wharfmq.server.config.TlsConfig;
import org.wharfmq.server.config.TopicDefinition;
import org.wharfmq.server.flow.FlowConfig;
import org.wharfmq.server.store.Durability;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * A YAML configuration file ({@code config/wharf.yaml}) as {@code wharf server --config} reads it: the queue
 * manager's settings and the message flows its flow host starts ({@code flows:}). Each top-level key is the name of
 * a {@link ServerConfig.Builder} setter (or {@code flows}); settings the file does not mention keep their defaults. A key that
 * is not a setting is an error naming the key, so a typo never silently falls back to a default. The broker knows
 * nothing of YAML: this is the one place that reads it.
 *
 * @param server the queue manager's settings (validated)
 * @param flows  the flows deployed at startup, in order (validated)
 */
public record ConfigurationFile(ServerConfig server, List<FlowConfig> flows) {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

    /** The built-in defaults, as when no file is given: every setting at its default, no flows. */
    public static ConfigurationFile defaults() {
        return new ConfigurationFile(ServerConfig.defaults(), List.of());
    }

    /**
     * Reads a YAML file.
     *
     * @throws ConfigurationException when the file cannot be read, is not valid YAML, names an unknown setting or
     *                                gives an invalid value; the message names the file and the setting
     */
    public static ConfigurationFile load(Path yaml) {
        Document document = new Document(yaml.toAbsolutePath().getParent());
        try (InputStream in = Files.newInputStream(yaml); JsonParser parser = YAML.createParser(in)) {
            // a file with nothing but comments has no content at all: that means "all defaults"
            if (parser.nextToken() != null) {
                YAML.readerForUpdating(document).readValue(parser);
            }
        } catch (NoSuchFileException e) {
            throw new ConfigurationException("Configuration file " + yaml + " does not exist.");
        } catch (UnrecognizedPropertyException e) {
            throw new ConfigurationException("Unknown setting '" + path(e) + "' in " + yaml + where(e.getLocation())
                    + ". Known settings here: " + String.join(", ", known(e)) + ".", e);
        } catch (JsonMappingException e) {
            if (e.getCause() instanceof ConfigurationException refused) { // a setter's own check (durability)
                throw inFile(refused, yaml);
            }
            throw new ConfigurationException("Invalid value for setting '" + path(e) + "' in " + yaml
                    + where(e.getLocation()) + ": " + e.getOriginalMessage(), e);
        } catch (JacksonException e) {
            throw new ConfigurationException("Configuration file " + yaml + " is not valid YAML"
                    + where(e.getLocation()) + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ConfigurationException("Cannot read configuration file " + yaml + ": " + e, e);
        }
        try {
            ServerConfig server = document.server.build();
            FlowConfig.validate(document.flows);
            return new ConfigurationFile(server, List.copyOf(document.flows));
        } catch (ConfigurationException e) {
            throw inFile(e, yaml);
        }
    }

    private static ConfigurationException inFile(ConfigurationException e, Path yaml) {
        return new ConfigurationException(e.getMessage() + " (in " + yaml + ")");
    }

    private static String path(JsonMappingException e) {
        StringBuilder sb = new StringBuilder();
        for (JsonMappingException.Reference r : e.getPath()) {
            if (r.getFieldName() != null) {
                if (sb.length() > 0) {
                    sb.append('.');
                }
                sb.append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                sb.append('[').append(r.getIndex()).append(']');
            }
        }
        return sb.toString();
    }

    private static Set<String> known(UnrecognizedPropertyException e) {
        Set<String> known = new TreeSet<>();
        if (e.getKnownPropertyIds() != null) {
            for (Object id : e.getKnownPropertyIds()) {
                known.add(String.valueOf(id));
            }
        }
        return known;
    }

    private static String where(JsonLocation location) {
        return location == null || location.getLineNr() < 1 ? "" : " at line " + location.getLineNr();
    }

    /**
     * The file's keys, bound by Jackson: one setter per key, each handing its value to the {@link ServerConfig.Builder} setter
     * of that name. A setting added to ServerConfig gets its key here (and its explanation in config/wharf.yaml).
     */
    @JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.NONE, getterVisibility = JsonAutoDetect.Visibility.NONE,
            isGetterVisibility = JsonAutoDetect.Visibility.NONE, setterVisibility = JsonAutoDetect.Visibility.NONE)
    private static final class Document {

        private final ServerConfig.Builder server = ServerConfig.builder();
        private final List<FlowConfig> flows = new ArrayList<>();
        /** The configuration file's directory, against which the security file and the TLS files are resolved. */
        private final Path directory;

        Document(Path directory) {
            this.directory = directory;
        }

        /** A file the configuration names: a relative name is relative to the configuration file's directory. */
        private Path file(String name) {
            return name == null ? null : directory.resolve(name);
        }

        @JsonProperty("name")
        void name(String name) {
            server.name(name);
        }

        @JsonProperty("host")
        void host(String host) {
            server.host(host);
        }

        @JsonProperty("port")
        void port(int port) {
            server.port(port);
        }

        @JsonProperty("inVmName")
        void inVmName(String inVmName) {
            server.inVmName(inVmName);
        }

        @JsonProperty("dataDirectory")
        void dataDirectory(String dataDirectory) {
            server.dataDirectory(dataDirectory == null ? null : Path.of(dataDirectory));
        }

        @JsonProperty("autoCreate")
        void autoCreate(boolean autoCreate) {
            server.autoCreate(autoCreate);
        }

        @JsonProperty("remoteDeploy")
        void remoteDeploy(boolean remoteDeploy) {
            server.remoteDeploy(remoteDeploy);
        }

        @JsonProperty("standby")
        void standby(boolean standby) {
            server.standby(standby);
        }

        @JsonProperty("maxMessageLength")
        void maxMessageLength(int maxMessageLength) {
            server.maxMessageLength(maxMessageLength);
        }

        @JsonProperty("maxQueueDepth")
        void maxQueueDepth(long maxQueueDepth) {
            server.maxQueueDepth(maxQueueDepth);
        }

        @JsonProperty("maxQueues")
        void maxQueues(int maxQueues) {
            server.maxQueues(maxQueues);
        }

        @JsonProperty("autoDeleteDelayMillis")
        void autoDeleteDelayMillis(long autoDeleteDelayMillis) {
            server.autoDeleteDelayMillis(autoDeleteDelayMillis);
        }

        @JsonProperty("ioThreads")
        void ioThreads(int ioThreads) {
            server.ioThreads(ioThreads);
        }

        @JsonProperty("heartbeatMillis")
        void heartbeatMillis(int heartbeatMillis) {
            server.heartbeatMillis(heartbeatMillis);
        }

        @JsonProperty("durability")
        void durability(String durability) {
            server.durability(Durability.parse(durability));
        }

        @JsonProperty("journalFileBytes")
        void journalFileBytes(long journalFileBytes) {
            server.journalFileBytes(journalFileBytes);
        }

        @JsonProperty("journalSlackBytes")
        void journalSlackBytes(long journalSlackBytes) {
            server.journalSlackBytes(journalSlackBytes);
        }

        @JsonProperty("journalMaxBytes")
        void journalMaxBytes(long journalMaxBytes) {
            server.journalMaxBytes(journalMaxBytes);
        }

        /** A relative path is relative to the configuration file's directory (security.yaml beside wharf.yaml). */
        @JsonProperty("securityFile")
        void securityFile(String securityFile) {
            server.securityFile(file(securityFile));
        }

        @JsonProperty("flowHostUser")
        void flowHostUser(String flowHostUser) {
            server.flowHostUser(flowHostUser);
        }

        @JsonProperty("flowHostPassword")
        void flowHostPassword(String flowHostPassword) {
            server.flowHostPassword(flowHostPassword);
        }

        @JsonProperty("handshakeTimeoutMillis")
        void handshakeTimeoutMillis(int handshakeTimeoutMillis) {
            server.handshakeTimeoutMillis(handshakeTimeoutMillis);
        }

        @JsonProperty("maxConnections")
        void maxConnections(int maxConnections) {
            server.maxConnections(maxConnections);
        }

        @JsonProperty("maxConnectionsPerAddress")
        void maxConnectionsPerAddress(int maxConnectionsPerAddress) {
            server.maxConnectionsPerAddress(maxConnectionsPerAddress);
        }

        @JsonProperty("maxTemporaryQueuesPerConnection")
        void maxTemporaryQueuesPerConnection(int maxTemporaryQueuesPerConnection) {
            server.maxTemporaryQueuesPerConnection(maxTemporaryQueuesPerConnection);
        }


        // ---- memory (docs/resilience.md) ----

        @JsonProperty("maxMemoryBytes")
        void maxMemoryBytes(long maxMemoryBytes) {
            server.maxMemoryBytes(maxMemoryBytes);
        }

        @JsonProperty("maxSubscriptionBytes")
        void maxSubscriptionBytes(long maxSubscriptionBytes) {
            server.maxSubscriptionBytes(maxSubscriptionBytes);
        }

        @JsonProperty("memoryPolicy")
        void memoryPolicy(String memoryPolicy) {
            server.memoryPolicy(MemoryPolicy.parse(memoryPolicy, "memoryPolicy"));
        }

        @JsonProperty("maxPageBytes")
        void maxPageBytes(long maxPageBytes) {
            server.maxPageBytes(maxPageBytes);
        }

        @JsonProperty("pageFullPolicy")
        void pageFullPolicy(String pageFullPolicy) {
            server.pageFullPolicy(MemoryPolicy.parse(pageFullPolicy, "pageFullPolicy"));
        }

        @JsonProperty("producerWindowBytes")
        void producerWindowBytes(int producerWindowBytes) {
            server.producerWindowBytes(producerWindowBytes);
        }

        @JsonProperty("fanOutWindowBytes")
        void fanOutWindowBytes(long fanOutWindowBytes) {
            server.fanOutWindowBytes(fanOutWindowBytes);
        }

        /** Entries: {@code filter}, {@code maxBytes} and {@code policy}, the components of {@link TopicDefinition}. */
        @JsonProperty("topics")
        void topics(List<TopicDefinition> topics) {
            server.topics(topics == null ? List.of() : topics);
        }

        /**
         * Entries: the components of {@link QueueDefinition} ({@code name}, {@code maxDepth}, {@code maxBytes},
         * {@code policy}, {@code maxPageBytes}, {@code pageFullPolicy}, {@code backoutThreshold},
         * {@code backoutQueue}, {@code depthHighEvent}, {@code depthLowEvent}, {@code fullEvent}).
         */
        @JsonProperty("queues")
        void queues(List<QueueDefinition> queues) {
            server.queues(queues == null ? List.of() : queues);
        }

        /** The {@code tls:} block ({@link TlsSection}): a TLS listener beside (or instead of) the plain one. */
        @JsonProperty("tls")
        void tls(TlsSection tls) {
            server.tls(tls == null ? null : tls.build(this::file));
        }

        /** The {@code http:} block ({@link HttpSection}): the HTTP listener (metrics, the web console). */
        @JsonProperty("http")
        void http(HttpSection http) {
            server.http(http == null ? null : http.build());
        }

        @JsonProperty("flows")
        void flows(List<FlowEntry> entries) {
            flows.clear();
            if (entries != null) {
                for (FlowEntry e : entries) {
                    flows.add(e == null ? null : new FlowConfig(e.jar, e.className, e.instances));
                }
            }
        }
    }

    /**
     * The keys of the {@code tls:} block, each handing its value to the {@link TlsConfig.Builder} setter of that name
     * (explained in config/wharf.yaml); the files' names are kept until {@link #build} resolves them.
     */
    @JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.NONE, getterVisibility = JsonAutoDetect.Visibility.NONE,
            isGetterVisibility = JsonAutoDetect.Visibility.NONE, setterVisibility = JsonAutoDetect.Visibility.NONE)
    private static final class TlsSection {

        private final TlsConfig.Builder tls = TlsConfig.builder();
        private String keyStore;
        private String certificate;
        private String privateKey;
        private String trustStore;
        private String trustCertificates;

        /** The settings, each file resolved by {@code file} (relative to the configuration file's directory). */
        TlsConfig build(Function<String, Path> file) {
            return tls.keyStore(file.apply(keyStore)).certificate(file.apply(certificate))
                    .privateKey(file.apply(privateKey)).trustStore(file.apply(trustStore))
                    .trustCertificates(file.apply(trustCertificates)).build();
        }

        @JsonProperty("port")
        void port(int port) {
            tls.port(port);
        }

        @JsonProperty("plain")
        void plain(boolean plain) {
            tls.plain(plain);
        }

        @JsonProperty("keyStore")
        void keyStore(String file) {
            keyStore = file;
        }

        @JsonProperty("keyStorePassword")
        void keyStorePassword(String password) {
            tls.keyStorePassword(password);
        }

        @JsonProperty("certificate")
        void certificate(String file) {
            certificate = file;
        }

        @JsonProperty("privateKey")
        void privateKey(String file) {
            privateKey = file;
        }

        @JsonProperty("privateKeyPassword")
        void privateKeyPassword(String password) {
            tls.privateKeyPassword(password);
        }

        @JsonProperty("protocols")
        void protocols(List<String> protocols) {
            tls.protocols(protocols);
        }

        @JsonProperty("cipherSuites")
        void cipherSuites(List<String> cipherSuites) {
            tls.cipherSuites(cipherSuites);
        }

        @JsonProperty("clientAuth")
        void clientAuth(String clientAuth) {
            tls.clientAuth(TlsConfig.clientAuth(clientAuth));
        }

        @JsonProperty("trustStore")
        void trustStore(String file) {
            trustStore = file;
        }

        @JsonProperty("trustStorePassword")
        void trustStorePassword(String password) {
            tls.trustStorePassword(password);
        }

        @JsonProperty("trustCertificates")
        void trustCertificates(String file) {
            trustCertificates = file;
        }

        @JsonProperty("engine")
        void engine(String engine) {
            tls.engine(TlsConfig.engine(engine));
        }
    }

    /**
     * The keys of the {@code http:} block (explained in config/wharf.yaml): the HTTP listener of metrics and the web
     * console, on {@link Configuration#DEFAULT_HTTP_PORT} unless {@code port} says otherwise.
     */
    @JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.NONE, getterVisibility = JsonAutoDetect.Visibility.NONE,
            isGetterVisibility = JsonAutoDetect.Visibility.NONE, setterVisibility = JsonAutoDetect.Visibility.NONE)
    private static final class HttpSection {

        private String host;
        private int port = Configuration.DEFAULT_HTTP_PORT;
        private boolean tls;

        @JsonProperty("host")
        void host(String host) {
            this.host = host;
        }

        @JsonProperty("port")
        void port(int port) {
            this.port = port;
        }

        @JsonProperty("tls")
        void tls(boolean tls) {
            this.tls = tls;
        }

        HttpConfig build() {
            return new HttpConfig(host, port, tls);
        }
    }

    /** An entry under {@code flows}: its keys are {@code jar}, {@code class} and {@code instances}. */
    private record FlowEntry(String jar, String className, Integer instances) {

        @JsonCreator
        FlowEntry(@JsonProperty("jar") String jar, @JsonProperty("class") String className,
                  @JsonProperty("instances") Integer instances) {
            this.jar = jar;
            this.className = className;
            this.instances = instances;
        }
    }
}
