package org.wharfmq.server.cli;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.wharfmq.server.config.ConfigurationException;
import org.wharfmq.server.config.Settings;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a YAML configuration file into a {@link Settings} tree: mappings, lists and the text of each value with its
 * line, nothing converted, for the components that own the keys to read. The one place that reads YAML.
 */
final class YamlTree {

    private static final YAMLFactory YAML = new YAMLFactory();

    private YamlTree() {
    }

    /**
     * Reads {@code yaml}; a file with nothing but comments is an empty mapping (all defaults).
     *
     * @throws ConfigurationException when the file cannot be read, is not valid YAML or is not a mapping of settings
     */
    static Settings read(Path yaml) {
        String source = yaml.toString();
        try (InputStream in = Files.newInputStream(yaml); JsonParser parser = YAML.createParser(in)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                return new Settings(source, "");
            }
            if (first != JsonToken.START_OBJECT) {
                throw new ConfigurationException("Configuration file " + yaml + " does not hold settings as key: value "
                        + "lines" + where(parser.currentLocation()) + ".");
            }
            return mapping(parser, source, "");
        } catch (NoSuchFileException e) {
            throw new ConfigurationException("Configuration file " + yaml + " does not exist.");
        } catch (JacksonException e) {
            throw new ConfigurationException("Configuration file " + yaml + " is not valid YAML"
                    + where(e.getLocation()) + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ConfigurationException("Cannot read configuration file " + yaml + ": " + e, e);
        }
    }

    private static Settings mapping(JsonParser parser, String source, String path) throws IOException {
        Settings settings = new Settings(source, path);
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String key = parser.currentName();
            int line = line(parser);
            parser.nextToken();
            settings.put(key, new Settings.Value(value(parser, source, settings.path(key)), line));
        }
        return settings;
    }

    private static Object value(JsonParser parser, String source, String path) throws IOException {
        switch (parser.currentToken()) {
            case START_OBJECT:
                return mapping(parser, source, path);
            case START_ARRAY:
                List<Settings.Value> items = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    int line = line(parser);
                    items.add(new Settings.Value(value(parser, source, path + "[" + items.size() + "]"), line));
                }
                return items;
            case VALUE_NULL:
                return null;
            default:
                return parser.getText();
        }
    }

    private static int line(JsonParser parser) {
        JsonLocation location = parser.currentTokenLocation();
        return location == null ? 0 : location.getLineNr();
    }

    private static String where(JsonLocation location) {
        return location == null || location.getLineNr() < 1 ? "" : " at line " + location.getLineNr();
    }
}
