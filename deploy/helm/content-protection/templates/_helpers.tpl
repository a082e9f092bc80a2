{{/* Every template ranges over the enabled services and passes (dict "root" $ "name" $name "svc" $svc). */}}

{{- define "cp.prefix" -}}
{{- default .Release.Name .Values.namePrefix | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/* <namePrefix>-<service> */}}
{{- define "cp.fullname" -}}
{{- printf "%s-%s" (include "cp.prefix" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Selector labels do not contain the release name: a service keeps them when it moves to its own release. */}}
{{- define "cp.selectorLabels" -}}
app.kubernetes.io/name: {{ .name }}
app.kubernetes.io/instance: {{ include "cp.prefix" .root }}
{{- end -}}

{{- define "cp.labels" -}}
{{ include "cp.selectorLabels" . }}
app.kubernetes.io/part-of: content-protection
app.kubernetes.io/component: {{ .name }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
helm.sh/chart: {{ .root.Chart.Name }}-{{ .root.Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* The service's own tag or digest when it has one, else the chart's; a digest wins over a tag (repository@sha256:...). */}}
{{- define "cp.image" -}}
{{- $global := .root.Values.image -}}
{{- $own := .svc.image | default dict -}}
{{- $repository := $own.repository | default $global.repository -}}
{{- $source := ternary $own $global (or (not (empty $own.tag)) (not (empty $own.digest))) -}}
{{- if $source.digest -}}
{{- printf "%s@%s" $repository $source.digest -}}
{{- else -}}
{{- printf "%s:%s" $repository (toString $source.tag) -}}
{{- end -}}
{{- end -}}

{{- define "cp.secretName" -}}
{{- if .root.Values.secrets.externalSecret.enabled -}}
{{- printf "%s-secrets" (include "cp.fullname" .) -}}
{{- else -}}
{{- .svc.existingSecret | default .root.Values.secrets.existingSecret -}}
{{- end -}}
{{- end -}}

{{- define "cp.serviceAccountName" -}}
{{- if .svc.serviceAccount.create -}}
{{- include "cp.fullname" . -}}
{{- else -}}
{{- .svc.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/* Replicas are left to the HPA or KEDA when one of them is on. */}}
{{- define "cp.autoscaled" -}}
{{- if or (and .svc.autoscaling .svc.autoscaling.enabled) (and .svc.keda .svc.keda.enabled) -}}true{{- end -}}
{{- end -}}
