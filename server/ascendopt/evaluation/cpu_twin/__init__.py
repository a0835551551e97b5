"""evaluation/cpu_twin"""
