"""Offline check of the Kubernetes manifests (deploy/service/check.sh runs it with Debian's python3-kubernetes).

Every document is walked against the model classes of the Kubernetes Python client (one class per API type, with
its fields and their types): an unknown or misspelt field, a value of the wrong type, or a missing required field is
an error, which neither yamllint nor the client's own deserializer (it drops unknown fields) reports. Then a few
rules the API server enforces and the types cannot express: the selector matches the pod template, every volume
mount names a volume, a hugepages limit is set and equal to its request, every ConfigMap an env refers to is in the
files. Prints one line per error; exit 1 when there is any.

    /usr/bin/python3 check_manifests.py FILE.yaml...
"""
import re
import sys

import kubernetes.client
import yaml

PRIMITIVES = {"str": str, "bool": bool, "int": int, "float": (int, float), "date": str, "datetime": str}


def model_class(api_version, kind):
    version = api_version.split("/")[-1]
    return getattr(kubernetes.client, version[0].upper() + version[1:] + kind, None)


def walk(value, type_name, path, errors):
    if value is None or type_name == "object":
        return
    primitive = PRIMITIVES.get(type_name)
    if primitive is not None:
        if not isinstance(value, primitive) or (type_name in ("int", "float") and isinstance(value, bool)):
            errors.append(f"{path}: {value!r} is not {type_name}")
        return
    match = re.fullmatch(r"list\[(.+)\]", type_name)
    if match:
        if not isinstance(value, list):
            errors.append(f"{path}: expected a list of {match.group(1)}")
            return
        for i, item in enumerate(value):
            walk(item, match.group(1), f"{path}[{i}]", errors)
        return
    match = re.fullmatch(r"dict\(str, (.+)\)", type_name)
    if match:
        if not isinstance(value, dict):
            errors.append(f"{path}: expected a map of {match.group(1)}")
            return
        for key, item in value.items():
            walk(item, match.group(1), f"{path}.{key}", errors)
        return
    cls = getattr(kubernetes.client, type_name)
    if not isinstance(value, dict):
        errors.append(f"{path}: expected an object ({type_name})")
        return
    attributes = {json_name: attr for attr, json_name in cls.attribute_map.items()}
    for key, item in value.items():
        if key not in attributes:
            errors.append(f"{path}: unknown field '{key}' in {type_name}")
        else:
            walk(item, cls.openapi_types[attributes[key]], f"{path}.{key}", errors)


def required_fields(document, cls, path, errors):
    """The client's models refuse a missing required field when built; build the whole tree once."""
    client = kubernetes.client.ApiClient()
    try:
        client._ApiClient__deserialize(document, cls.__name__)
    except (ValueError, TypeError) as ex:
        errors.append(f"{path}: {ex}")


def pod_spec_rules(spec, path, config_maps, errors):
    volumes = {volume.get("name") for volume in spec.get("volumes") or []}
    for container in (spec.get("containers") or []) + (spec.get("initContainers") or []):
        where = f"{path}.containers[{container.get('name')}]"
        for mount in container.get("volumeMounts") or []:
            if mount.get("name") not in volumes:
                errors.append(f"{where}: volume mount '{mount.get('name')}' names no volume")
        resources = container.get("resources") or {}
        requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
        for name in set(requests) | set(limits):
            if name.startswith("hugepages-") and (name not in limits or requests.get(name, limits[name]) != limits[name]):
                errors.append(f"{where}: {name} needs a limit equal to its request")
        references = [source["configMapRef"]["name"] for source in container.get("envFrom") or []
                      if "configMapRef" in source]
        references += [env["valueFrom"]["configMapKeyRef"]["name"] for env in container.get("env") or []
                       if "configMapKeyRef" in (env.get("valueFrom") or {})]
        for name in references:
            if name not in config_maps:
                errors.append(f"{where}: ConfigMap '{name}' is not in the files")


def check(paths):
    errors = []
    documents = []
    for path in paths:
        with open(path, encoding="utf-8") as file:
            for index, document in enumerate(yaml.safe_load_all(file)):
                if document is not None:
                    documents.append((f"{path}#{index}", document))
    config_maps = {document["metadata"]["name"] for _, document in documents
                   if document.get("kind") == "ConfigMap" and "metadata" in document}
    for where, document in documents:
        if not isinstance(document, dict) or "apiVersion" not in document or "kind" not in document:
            errors.append(f"{where}: not a Kubernetes object (apiVersion and kind)")
            continue
        cls = model_class(document["apiVersion"], document["kind"])
        if cls is None:
            errors.append(f"{where}: unknown type {document['apiVersion']} {document['kind']}")
            continue
        where = f"{where} {document['kind']}/{(document.get('metadata') or {}).get('name')}"
        before = len(errors)
        walk(document, cls.__name__, where, errors)
        if len(errors) == before:
            required_fields(document, cls, where, errors)
        spec = document.get("spec") or {}
        if document["kind"] == "Pod":
            pod_spec_rules(spec, f"{where}.spec", config_maps, errors)
        elif "template" in spec:
            template = spec.get("template") or {}
            labels = (template.get("metadata") or {}).get("labels") or {}
            for key, value in ((spec.get("selector") or {}).get("matchLabels") or {}).items():
                if labels.get(key) != value:
                    errors.append(f"{where}: selector {key}={value} does not match the pod template's labels")
            pod_spec_rules(template.get("spec") or {}, f"{where}.spec.template.spec", config_maps, errors)
    for error in errors:
        print(error)
    print(f"check_manifests: {len(documents)} objects in {len(paths)} files, {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(check(sys.argv[1:]))
