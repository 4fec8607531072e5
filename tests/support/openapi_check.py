#!/usr/bin/env python3
"""Checks JSON against the schemas of docgate's OpenAPI document (JSON Schema draft 2020-12).

  openapi_check.py examples DOC
      Every schema in the document is valid 2020-12; every example (media types of responses and
      request bodies, parameters, headers, schemas) validates against the schema beside it; every
      2xx JSON response and every problem response has at least one example.

  openapi_check.py responses DOC SAMPLES [--only PREFIX | --except PREFIX]
      SAMPLES is a JSON array of real responses, each
        {"method": "GET", "target": "/api/v1/documents/17?x=y", "status": 200,
         "content_type": "application/json", "headers": {"etag": "\\"1\\""}, "body": ...}
      (`headers` have lower-case names; `body` is the parsed JSON or, for other media types, the
      text). The target's path picks the operation by the document's path templates. Each sample
      must be a documented response of that operation: its status, its media type, the headers
      the document marks required, and its body valid against the documented schema. Every
      operation the build serves (not marked x-docgate-not-served) must have a success sample
      (2xx, or the 3xx of a redirecting operation); with --only, those under the path PREFIX,
      with --except, the others (what one test cannot drive, another covers).

Prints one line per failure and exits 1 when there is any; exits 2 on bad usage.
Runs on Debian's python3-jsonschema (4.10, scripts/deps.sh) and on newer releases.
"""

import copy
import json
import re
import sys

from jsonschema import Draft202012Validator

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")


class Checker:
    def __init__(self, doc):
        self.doc = doc
        self.failures = []

    def fail(self, where, message):
        self.failures.append(f"{where}: {message}")

    def resolve(self, node):
        """Follows local $ref chains (#/...) to the node they name."""
        seen = set()
        while isinstance(node, dict) and "$ref" in node and len(node) == 1:
            target = node["$ref"]
            if target in seen or not target.startswith("#/"):
                raise ValueError(f"unresolvable $ref {target}")
            seen.add(target)
            node = self.doc
            for part in target[2:].split("/"):
                node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def validator(self, schema):
        # The schema as the root of a resource that also holds the document's paths and
        # components, so that its "#/components/..." references resolve (2020-12 ignores the
        # unknown keywords).
        root = copy.deepcopy(schema) if isinstance(schema, dict) else {"allOf": [schema]}
        root["components"] = self.doc.get("components", {})
        root["paths"] = self.doc.get("paths", {})
        return Draft202012Validator(root)

    def validate(self, where, schema, instance):
        errors = sorted(self.validator(schema).iter_errors(instance), key=lambda e: list(e.path))
        for error in errors:
            location = "/".join(str(p) for p in error.absolute_path) or "(root)"
            self.fail(where, f"at {location}: {error.message}")
        return not errors

    def operations(self):
        for path, item in self.doc.get("paths", {}).items():
            for method in METHODS:
                if method in item:
                    yield path, method, item[method]

    def example_values(self, holder):
        """The example values of a media type, parameter or header object: (name, value)."""
        if "example" in holder:
            yield "example", holder["example"]
        for name, example in holder.get("examples", {}).items():
            example = self.resolve(example)
            if "value" in example:
                yield name, example["value"]

    # --- examples mode ---------------------------------------------------------------------

    def check_schemas(self):
        for name, schema in self.doc.get("components", {}).get("schemas", {}).items():
            try:
                Draft202012Validator.check_schema(schema)
            except Exception as error:  # jsonschema.SchemaError; reported, not raised
                self.fail(f"components/schemas/{name}", f"not a valid 2020-12 schema: {error}")
            for i, value in enumerate(schema.get("examples", [])):
                self.validate(f"components/schemas/{name} examples[{i}]", schema, value)

    def check_media(self, where, content, need_example):
        for media, media_object in content.items():
            if "schema" not in media_object:
                self.fail(f"{where} {media}", "no schema")
                continue
            values = list(self.example_values(media_object))
            if need_example(media) and not values:
                self.fail(f"{where} {media}", "no example")
            for name, value in values:
                self.validate(f"{where} {media} example '{name}'", media_object["schema"], value)

    def check_examples(self):
        self.check_schemas()
        for path, method, operation in self.operations():
            where = f"{method.upper()} {path}"
            for parameter in operation.get("parameters", []):
                parameter = self.resolve(parameter)
                for name, value in self.example_values(parameter):
                    self.validate(f"{where} parameter {parameter['name']} {name}",
                                  parameter["schema"], value)
            if "requestBody" in operation:
                body = self.resolve(operation["requestBody"])
                self.check_media(f"{where} request body", body.get("content", {}),
                                 lambda media: True)
            for status, response in operation.get("responses", {}).items():
                response = self.resolve(response)
                for header_name, header in response.get("headers", {}).items():
                    header = self.resolve(header)
                    for name, value in self.example_values(header):
                        self.validate(f"{where} {status} header {header_name} {name}",
                                      header["schema"], value)
                self.check_media(
                    f"{where} {status}", response.get("content", {}),
                    lambda media, status=status: status.startswith("2")
                    or media == "application/problem+json")
        return self.failures

    # --- responses mode --------------------------------------------------------------------

    def template_of(self, target):
        """The document's path template that the target's path matches, else None."""
        path = target.split("?", 1)[0]
        for template in self.doc.get("paths", {}):
            pattern = "^" + re.sub(r"\\\{[^/]+\\\}", "[^/]+", re.escape(template)) + "$"
            if re.match(pattern, path):
                return template
        return None

    def check_sample(self, sample):
        method = sample["method"].lower()
        template = self.template_of(sample["target"])
        where = f"{method.upper()} {sample['target']} -> {sample['status']}"
        operation = self.doc.get("paths", {}).get(template, {}).get(method)
        if operation is None:
            self.fail(where, "no such operation in the document")
            return None
        where = f"{method.upper()} {template} ({sample['target']}) -> {sample['status']}"
        responses = operation.get("responses", {})
        status = str(sample["status"])
        response = responses.get(status, responses.get(status[0] + "XX", responses.get("default")))
        if response is None:
            self.fail(where, f"status {status} is not documented (documented: {sorted(responses)})")
            return template
        response = self.resolve(response)
        for header_name, header in response.get("headers", {}).items():
            header = self.resolve(header)
            value = sample.get("headers", {}).get(header_name.lower())
            if value is None:
                if header.get("required", False):
                    self.fail(where, f"required header {header_name} is missing")
                continue
            self.validate(f"{where} header {header_name}", header["schema"], value)
        content = response.get("content", {})
        media = sample.get("content_type", "")
        if not content:
            if sample.get("body") not in (None, ""):
                self.fail(where, "a body where the document says there is none")
            return template
        if media not in content:
            self.fail(where, f"content type '{media}' is not documented ({sorted(content)})")
            return template
        self.validate(f"{where} body", content[media]["schema"], sample.get("body"))
        return template

    def check_responses(self, samples, only=None, exclude=None):
        if not samples:
            self.fail("samples", "none given")
        covered = set()
        for sample in samples:
            template = self.check_sample(sample)
            if template is not None and 200 <= int(sample["status"]) < 400:
                covered.add((sample["method"].lower(), template))
        for path, method, operation in self.operations():
            if operation.get("x-docgate-not-served"):
                continue
            if only is not None and not path.startswith(only):
                continue
            if exclude is not None and path.startswith(exclude):
                continue
            if (method, path) not in covered:
                self.fail(f"{method.upper()} {path}", "served, but no 2xx response was checked")
        return self.failures


def main(argv):
    if len(argv) < 3 or argv[1] not in ("examples", "responses"):
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[2], encoding="utf-8") as f:
        checker = Checker(json.load(f))
    if argv[1] == "examples":
        failures = checker.check_examples()
    else:
        options = argv[4:]
        if len(argv) < 4 or len(options) not in (0, 2) or (
                options and options[0] not in ("--only", "--except")):
            print(__doc__, file=sys.stderr)
            return 2
        with open(argv[3], encoding="utf-8") as f:
            samples = json.load(f)
        only = options[1] if options and options[0] == "--only" else None
        exclude = options[1] if options and options[0] == "--except" else None
        failures = checker.check_responses(samples, only, exclude)
        print(f"openapi_check: {len(samples)} responses checked")
    for failure in failures:
        print(f"FAIL {failure}")
    print(f"openapi_check {argv[1]}: {'FAILED' if failures else 'ok'} ({len(failures)} failures)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
