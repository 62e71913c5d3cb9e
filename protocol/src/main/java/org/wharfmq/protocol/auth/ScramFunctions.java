package org.wharfmq.protocol.auth;

import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/** The functions of RFC 5802 section 2.2 for SHA-256, and the parsing of SCRAM's {@code a=value,...} messages. */
final class ScramFunctions {

    /** The gs2 header of a client that does no channel binding, base64: the {@code c=} of every client-final. */
    static final String GS2_HEADER = "n,,";

    private ScramFunctions() {
    }

    static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM lacks HmacSHA256, which every Java SE has", e);
        }
    }

    static byte[] hmac(byte[] key, String data) {
        return hmac(key, data.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM lacks SHA-256, which every Java SE has", e);
        }
    }

    /** Hi(password, salt, i) of RFC 5802: PBKDF2 with HMAC-SHA-256 and one block of output (the JDK encodes the password as UTF-8). */
    static byte[] saltedPassword(char[] password, byte[] salt, int iterations) {
        try {
            PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, 256);
            try {
                return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
            } finally {
                spec.clearPassword();
            }
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM lacks PBKDF2WithHmacSHA256, which every Java SE has", e);
        }
    }

    static byte[] xor(byte[] a, byte[] b) {
        byte[] r = new byte[a.length];
        for (int i = 0; i < a.length; i++) {
            r[i] = (byte) (a[i] ^ b[i]);
        }
        return r;
    }

    static String base64(byte[] bytes) {
        return Base64.getEncoder().encodeToString(bytes);
    }

    static byte[] unbase64(String text, String what) throws ScramException {
        try {
            return Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException e) {
            throw new ScramException(what + " is not base64: " + e.getMessage());
        }
    }

    /** A user name as SCRAM writes it: ',' and '=' escaped as =2C and =3D. */
    static String saslName(String user) {
        return user.replace("=", "=3D").replace(",", "=2C");
    }

    static String unSaslName(String name) throws ScramException {
        StringBuilder user = new StringBuilder(name.length());
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c != '=') {
                user.append(c);
            } else if (name.startsWith("=2C", i)) {
                user.append(',');
                i += 2;
            } else if (name.startsWith("=3D", i)) {
                user.append('=');
                i += 2;
            } else {
                throw new ScramException("the user name has a bad escape at character " + i + ": " + name);
            }
        }
        return user.toString();
    }

    /**
     * The attributes of a SCRAM message ({@code a=value,b=value}), in order; a mandatory extension ({@code m=}) or
     * anything not of that form is refused.
     */
    static Map<String, String> attributes(String message, String what) throws ScramException {
        Map<String, String> attributes = new LinkedHashMap<>();
        for (String part : message.split(",", -1)) {
            if (part.length() < 2 || part.charAt(1) != '=' || !Character.isLetter(part.charAt(0))) {
                throw new ScramException(what + " is malformed: '" + part + "' is not an attribute=value pair");
            }
            String name = part.substring(0, 1);
            if (name.equals("m")) {
                throw new ScramException(what + " asks for a mandatory extension (m=), which is not supported");
            }
            if (attributes.putIfAbsent(name, part.substring(2)) != null) {
                throw new ScramException(what + " repeats attribute " + name);
            }
        }
        return attributes;
    }

    static String require(Map<String, String> attributes, String name, String what) throws ScramException {
        String value = attributes.get(name);
        if (value == null || value.isEmpty()) {
            throw new ScramException(what + " lacks attribute " + name + "=");
        }
        return value;
    }

    /** Whether two byte arrays are equal, in time that does not depend on where they differ. */
    static boolean same(byte[] a, byte[] b) {
        return MessageDigest.isEqual(a, b);
    }

    static String utf8(byte[] bytes, String what) throws ScramException {
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (!java.util.Arrays.equals(text.getBytes(StandardCharsets.UTF_8), bytes)) {
            throw new ScramException(what + " is not UTF-8");
        }
        return text;
    }
}
