package org.wharfmq.jms;

import javax.jms.TextMessage;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/** Another provider's TextMessage, as a dynamic proxy: headers and properties in maps, everything else inert. */
final class ForeignTextMessage implements InvocationHandler {
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private final Map<String, Object> headers = new HashMap<>();
    private final String text;

    private ForeignTextMessage(String text) {
        this.text = text;
    }

    static TextMessage create(String text) {
        return (TextMessage) Proxy.newProxyInstance(ForeignTextMessage.class.getClassLoader(),
                new Class<?>[]{TextMessage.class}, new ForeignTextMessage(text));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) {
        String name = method.getName();
        Object result = null;
        if (name.equals("getText")) {
            result = text;
        } else if (name.equals("getPropertyNames")) {
            result = Collections.enumeration(properties.keySet());
        } else if (name.startsWith("set") && name.endsWith("Property")) {
            properties.put((String) args[0], args[1]);
        } else if (name.startsWith("get") && name.endsWith("Property")) {
            result = properties.get((String) args[0]);
        } else if (name.startsWith("setJMS")) {
            headers.put(name.substring(3), args[0]);
        } else if (name.startsWith("getJMS")) {
            result = headers.get(name.substring(3));
        } else if (name.equals("toString")) {
            result = "ForeignTextMessage";
        }
        if (result == null && method.getReturnType().isPrimitive()) {
            Class<?> t = method.getReturnType();
            return t == boolean.class ? Boolean.FALSE : t == long.class ? (Object) 0L : t == void.class ? null : (Object) 0;
        }
        return result;
    }
}
