#!/bin/sh
# The TLS keys of the secured example (docs/security.md, "Worked example: two applications over TLS"), made with the
# JDK's keytool into tls/ beside this script. Run it where it is, in one of two ways:
#
#   sh make-keys.sh self-signed   the server signs its own certificate; clients trust that certificate itself.
#                                 For a test, or one server whose certificate you hand to its clients.
#   sh make-keys.sh private-ca    a CA of your own signs the server's certificate; clients trust the CA, so a new
#                                 server certificate needs no change on the clients. Keep tls/ca.p12 (the CA's
#                                 private key) off the server once the certificate is made.
#
# Either writes tls/server.p12 (the server's key and certificate chain: tls.keyStore in wharf.yaml) and
# tls/trust.p12 (what clients trust: the trustStore option of their URL). The certificate names the host clients
# connect to, as a DNS name (HOST, default localhost) and as an IP address (IP, default 127.0.0.1): a client checks
# the host of its URL against these subject alternative names, so ssl://127.0.0.1 needs the IP entry and
# ssl://mq1.example.com the DNS one. For a real host: HOST=mq1.example.com IP=10.0.0.5 sh make-keys.sh private-ca
# The stores' password is STOREPASS (default changeit): set the same as keyStorePassword in wharf.yaml.
set -eu
cd "$(dirname "$0")"
mode=${1:-}
host=${HOST:-localhost}
ip=${IP:-127.0.0.1}
pass=${STOREPASS:-changeit}
mkdir -p tls
rm -f tls/server.p12 tls/server.crt tls/trust.p12 tls/ca.p12 tls/ca.crt
case "$mode" in
self-signed)
  keytool -genkeypair -alias wharf -keyalg EC -dname "CN=$host" -ext "san=dns:$host,ip:$ip" -validity 825 \
          -storetype PKCS12 -keystore tls/server.p12 -storepass "$pass"
  keytool -exportcert -rfc -alias wharf -keystore tls/server.p12 -storepass "$pass" > tls/server.crt
  keytool -importcert -noprompt -alias wharf -file tls/server.crt -storetype PKCS12 -keystore tls/trust.p12 \
          -storepass "$pass"
  ;;
private-ca)
  keytool -genkeypair -alias ca -keyalg EC -dname "CN=Example CA" -ext bc:c -validity 3650 \
          -storetype PKCS12 -keystore tls/ca.p12 -storepass "$pass"
  keytool -exportcert -rfc -alias ca -keystore tls/ca.p12 -storepass "$pass" > tls/ca.crt
  keytool -genkeypair -alias wharf -keyalg EC -dname "CN=$host" -validity 825 \
          -storetype PKCS12 -keystore tls/server.p12 -storepass "$pass"
  keytool -certreq -alias wharf -keystore tls/server.p12 -storepass "$pass" \
    | keytool -gencert -alias ca -keystore tls/ca.p12 -storepass "$pass" -ext "san=dns:$host,ip:$ip" \
              -validity 825 -rfc > tls/server.crt
  keytool -importcert -noprompt -alias ca -file tls/ca.crt -keystore tls/server.p12 -storepass "$pass"
  keytool -importcert -alias wharf -file tls/server.crt -keystore tls/server.p12 -storepass "$pass"
  keytool -importcert -noprompt -alias ca -file tls/ca.crt -storetype PKCS12 -keystore tls/trust.p12 \
          -storepass "$pass"
  ;;
*)
  echo "usage: sh make-keys.sh self-signed|private-ca" >&2
  exit 2
  ;;
esac
echo "Made tls/server.p12 (for $host, $ip) and tls/trust.p12 ($mode)."
